/**
 * The one line `ragd serve` prints for a person at a terminal, beside the JSON log (which
 * goes to stderr for whatever collects it): where the dashboard is, where the data lives,
 * and, while there is no account, who becomes the administrator. Printed only when stdout
 * is a terminal, so a service manager, a container or a pipe sees the log alone.
 */
import type { Config } from "../config";

export interface FirstRun {
  /** The dashboard's address: the server's public base URL. */
  url: string;
  dataDir: string;
  /** No account exists yet. */
  noAccount: boolean;
  /** Sign-up is open (RAGD_SIGNUP): the first account may come from the dashboard. */
  signupOpen: boolean;
  /** The single sign-on provider's name when one is set (RAGD_OIDC_ISSUER): accounts then come from it, not from passwords. */
  sso?: string | null;
}

/** The line, without its newline. */
export function firstRunLine(f: FirstRun): string {
  const where = `ragd is running: open ${f.url.replace(/\/$/, "")}/ in a browser; data in ${f.dataDir}.`;
  if (!f.noAccount) return where;
  const how = !f.signupOpen
    ? "No account yet and sign-up is closed: `ragd user create --email E --password P` makes the first, the administrator."
    : f.sso
      ? `No account yet: the first person to sign in with ${f.sso} becomes the administrator.`
      : "No account yet: the first account created (Create an account) becomes the administrator.";
  return `${where} ${how}`;
}

/** Prints the line when stdout is a terminal. */
export async function printFirstRun(
  config: Pick<Config, "dataDir" | "signup" | "oidcIssuer" | "oidcName">,
  url: string,
  awaitsFirstAccount: () => Promise<boolean>,
  stdout: { isTTY?: boolean; write(s: string): unknown } = process.stdout,
): Promise<void> {
  if (!stdout.isTTY) return;
  const noAccount = await awaitsFirstAccount();
  const sso = config.oidcIssuer ? config.oidcName : null;
  const signupOpen = config.signup === "open";
  stdout.write(`${firstRunLine({ url, dataDir: config.dataDir, noAccount, signupOpen, sso })}\n`);
}
