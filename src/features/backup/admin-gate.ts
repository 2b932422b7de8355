/**
 * requireAdmin: the one check that stands between a signed-in user and the
 * administrator's operations (backup). ragd has no administrator role yet.
 *
 * TODO(admin role): until it lands, every signed-in user passes; replace this body
 * with the role check (e.g. `if (user.role !== "admin") throw new AppError("forbidden", …)`).
 * The local command line (`ragd backup`) does not come through here: it proves it
 * may read the data directory with the control token (features/backup/control.ts).
 */
import type { User } from "../../db/schema";

export function requireAdmin(_user: User): void {
  // Intentionally open for now; see above.
}
