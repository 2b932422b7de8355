/**
 * POST /api/admin/backup (docs/API.md, Backup and restore): streams a backup archive
 * of the whole data directory. For an administrator's session (the admin rule of
 * AdminService.actorOf), or
 * for the local command line with the control token.
 */
import { Elysia } from "elysia";
import { archiveStream } from "../../backup/archive";
import { authenticateSession } from "../../http/auth";
import { AppError } from "../../http/errors";
import { AdminService } from "../admin/service";
import type { AuthService } from "../auth/service";
import { CONTROL_HEADER, tokenMatches } from "./control";
import type { BackupService } from "./service";

export function backupRoutes(auth: AuthService, backups: BackupService) {
  return new Elysia({ prefix: "/api/admin", tags: ["Admin"] }).post(
    "/backup",
    async ({ request }) => {
      await authorize(auth, backups, request);
      const b = await backups.prepare();
      const name = `ragd-backup-${b.manifest.takenAt.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}.tar`;
      return new Response(archiveStream(b.bytes, b.discard), {
        headers: {
          "content-type": "application/x-tar",
          "content-disposition": `attachment; filename="${name}"`,
          "cache-control": "no-store",
        },
      });
    },
    {
      detail: {
        summary: "Download a consistent backup archive of the whole server (administrators)",
        responses: {
          200: { description: "a tar archive (application/x-tar)" },
          501: { description: "the server keeps its files in object storage" },
        },
      },
    },
  );
}

/** The control token, or else an administrator's session (401/403 otherwise). */
async function authorize(auth: AuthService, backups: BackupService, request: Request): Promise<void> {
  const token = request.headers.get(CONTROL_HEADER);
  if (token !== null) {
    if (!tokenMatches(backups.controlToken, token)) throw new AppError("forbidden", "the control token is not valid");
    return;
  }
  AdminService.actorOf((await authenticateSession(auth, request)).user);
}
