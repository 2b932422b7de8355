/**
 * Single sign-on with the organisation's OpenID Connect provider: the authorization
 * code flow with PKCE, state and nonce (docs/configuration.md, Single sign-on). ragd is the relying
 * party; it learns a verified email and the caller signs that person in.
 *
 * Outbound requests here use the plain fetch, not the fetch rules for sources
 * (ingest/fetch): those refuse loopback and link-local addresses because a source URL
 * is anyone's input, while the issuer is set by the operator, who may well run the
 * provider beside ragd on loopback or in a private network.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import * as oidc from "openid-client";
import type { Config } from "../../config";
import { AppError } from "../../http/errors";
import type { Logger } from "../../log";
import { isAccountEmail } from "./schemas";

export const OIDC_COOKIE = "ragd_oidc";
/** How long a sign-in may sit at the provider before its state expires. */
export const PENDING_TTL_S = 600;

type OidcSettings = Pick<Config, "oidcIssuer" | "oidcClientId" | "oidcClientSecret">;

/** What the browser keeps (signed, in a cookie) between the start and the callback. */
interface Pending {
  state: string;
  nonce: string;
  verifier: string;
  expires: number;
}

export interface VerifiedIdentity {
  email: string;
  subject: string;
}

export class SingleSignOn {
  private discovered: Promise<oidc.Configuration> | undefined;

  constructor(
    private readonly settings: OidcSettings,
    private readonly secret: Buffer,
    private readonly log: Logger,
  ) {}

  /** The provider's authorization URL for a new sign-in, and the signed cookie value that goes with it. */
  async start(redirectUri: string): Promise<{ url: string; cookie: string }> {
    const config = await this.configuration();
    const pending: Pending = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      expires: Date.now() + PENDING_TTL_S * 1000,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid email",
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: "S256",
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, cookie: this.sign(pending) };
  }

  /**
   * Checks the provider's answer against the pending sign-in, redeems the code and
   * returns the person's email, refusing one the provider has not verified.
   */
  async finish(redirectUri: string, query: URLSearchParams, cookie: string | undefined): Promise<VerifiedIdentity> {
    const pending = cookie ? this.verify(cookie) : undefined;
    if (!pending) throw failed("the sign-in expired or was started in another browser; start it again");
    const config = await this.configuration();
    const current = new URL(redirectUri);
    for (const [k, v] of query) current.searchParams.append(k, v);
    const claims = await this.redeem(config, current, pending);
    const email = typeof claims.email === "string" ? claims.email.trim() : "";
    if (email === "") {
      throw new AppError("forbidden", "the identity provider did not share an email address; ragd needs one");
    }
    // The provider is trusted to verify an address, not to shape it: an account made here
    // must hold an email that sign-up would have taken.
    if (!isAccountEmail(email)) {
      throw new AppError(
        "forbidden",
        "the identity provider shared an email that is not a valid address of at most 320 characters; ask its administrator to correct it",
      );
    }
    // A few providers send the claim as the string "true".
    if (claims.email_verified !== true && claims.email_verified !== "true") {
      throw new AppError(
        "email_not_verified",
        `the identity provider has not verified ${email}; verify it there, then sign in again`,
      );
    }
    return { email, subject: String(claims.sub) };
  }

  /** Redeems the code; the email comes from the ID token or, when not there, the userinfo endpoint. */
  private async redeem(config: oidc.Configuration, current: URL, p: Pending): Promise<Record<string, unknown>> {
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: p.verifier,
        expectedState: p.state,
        expectedNonce: p.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims()!;
      if (typeof idClaims.email === "string" && "email_verified" in idClaims) return idClaims;
      return { ...(await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub)) };
    } catch (err) {
      throw this.explain(err);
    }
  }

  /** The provider's metadata, fetched once (again after a failure). */
  private configuration(): Promise<oidc.Configuration> {
    const { oidcIssuer, oidcClientId, oidcClientSecret } = this.settings;
    this.discovered ??= oidc
      .discovery(new URL(oidcIssuer!), oidcClientId!, undefined, oidc.ClientSecretPost(oidcClientSecret!), {
        // config.ts allows plain http only for a loopback issuer.
        execute: oidcIssuer!.startsWith("http:") ? [oidc.allowInsecureRequests] : [],
        timeout: 10,
      })
      .catch((err) => {
        this.discovered = undefined;
        this.log.warn("identity provider discovery failed", { issuer: oidcIssuer, error: err });
        throw new AppError("sso_unavailable", "the identity provider does not answer; try again later");
      });
    return this.discovered;
  }

  /** An openid-client failure as the error a person sees; the detail goes to the log. */
  private explain(err: unknown): AppError {
    if (err instanceof AppError) return err;
    if (err instanceof oidc.AuthorizationResponseError) {
      return failed(`the identity provider refused the sign-in (${err.error})`);
    }
    this.log.warn("single sign-on failed", { error: err });
    if (err instanceof oidc.ResponseBodyError || err instanceof oidc.ClientError) {
      return failed("the identity provider's answer could not be checked; start the sign-in again");
    }
    return new AppError("sso_unavailable", "the identity provider does not answer; try again later");
  }

  private sign(p: Pending): string {
    const body = Buffer.from(JSON.stringify(p)).toString("base64url");
    return `${body}.${this.mac(body)}`;
  }

  private verify(cookie: string): Pending | undefined {
    const [body, mac] = cookie.split(".");
    if (!body || !mac) return undefined;
    const want = Buffer.from(this.mac(body));
    const got = Buffer.from(mac);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
    const p = JSON.parse(Buffer.from(body, "base64url").toString()) as Pending;
    return p.expires > Date.now() ? p : undefined;
  }

  private mac(body: string): string {
    return createHmac("sha256", this.secret).update(`oidc:${body}`).digest("base64url");
  }
}

const failed = (message: string) => new AppError("sso_failed", message);
