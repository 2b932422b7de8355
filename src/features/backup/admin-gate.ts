/**
 * requireAdmin: the one check that stands between a signed-in user and the
 * administrator's operations (backup): 403 forbidden for anyone who is not an
 * administrator (docs/API.md, Administration). The local command line (`ragd backup`)
 * does not come through here: it proves it may read the data directory with the
 * control token (features/backup/control.ts).
 */
import type { User } from "../../db/schema";
import { AppError } from "../../http/errors";

export function requireAdmin(user: User): void {
  if (!user.isAdmin) throw new AppError("forbidden", "only an administrator may do this");
}
