/** The session cookie: ragd_session, HttpOnly, SameSite=Lax, Path=/, Secure over https. */
import { isHttps } from "../../http/csrf";

export const SESSION_COOKIE = "ragd_session";
export const SESSION_DAYS = 30;

/** The Set-Cookie value for a session token (or, with maxAge 0, for clearing it). */
export function sessionCookie(token: string, request: Request, maxAge = SESSION_DAYS * 86_400): string {
  const secure = isHttps(request) ? "; Secure" : "";
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}
