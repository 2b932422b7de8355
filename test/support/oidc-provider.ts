/**
 * A real OpenID Connect provider (the oidc-provider library) on a loopback port, for
 * sign-in tests. Its development login form takes any login name: the account's email
 * is `<login>@example.test`, verified unless the login starts with "unverified".
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers ragd's redirect URIs (known once ragd listens) and starts answering. */
  register(redirectUris: string[]): void;
  close(): Promise<void>;
}

/**
 * Reserves a loopback port for the provider; it answers once `register` is called.
 * `emails` gives some login names another email claim than `<login>@example.test`.
 */
export async function startTestProvider(emails: Record<string, string> = {}): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "ragd-test";
  const clientSecret = "a-client-secret-for-tests-only-0123456789";
  return {
    issuer,
    clientId,
    clientSecret,
    register(redirectUris) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: redirectUris,
            grant_types: ["authorization_code"],
            response_types: ["code"],
          },
        ],
        claims: { openid: ["sub"], email: ["email", "email_verified"] },
        findAccount: (_ctx: unknown, id: string) => ({
          accountId: id,
          claims: () => ({
            sub: id,
            email: emails[id] ?? `${id}@example.test`,
            email_verified: !id.startsWith("unverified"),
          }),
        }),
        pkce: { required: () => true },
        // Fixed lifetimes: the library's defaults print a notice for each.
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
      });
      server.on("request", provider.callback());
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
