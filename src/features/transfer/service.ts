/**
 * Pipeline export and import over HTTP (docs/API.md, Export and import): who may
 * act (a session, or the local command line with the control token), and the
 * upload of an archive to a temporary file before it is imported.
 */
import { rmSync } from "node:fs";
import { type PreparedArchive, type ExportManifest, prepareExport } from "../../backup/export";
import { ArchiveError } from "../../backup/archive";
import { importPipeline, type ImportDeps, type ImportResult } from "../../backup/import";
import type { Db } from "../../db/client";
import { findCollectionById } from "../../db/repo/collections";
import { findUserByEmail } from "../../db/repo/users";
import type { User } from "../../db/schema";
import type { DiskFileStore } from "../../files/disk-store";
import { receiveFile } from "../../files/multipart";
import { authenticateSession } from "../../http/auth";
import { AppError, diskOnly, notFound } from "../../http/errors";
import type { AuthService } from "../auth/service";
import { CONTROL_HEADER, tokenMatches } from "../backup/control";

export interface TransferDeps extends ImportDeps {
  auth: AuthService;
  /**
   * An archive is staged there, and export/import read and write files by path; null
   * with object storage, where both are refused.
   */
  files: DiskFileStore | null;
  controlToken: string;
  /** Largest archive accepted, in bytes. */
  maxArchiveBytes: number;
}

/** Who is asking: a signed-in user, or the control token (acting for `owner` when it names one). */
type Caller = { kind: "user"; user: User } | { kind: "control" };

export class TransferService {
  constructor(private readonly d: TransferDeps) {}

  /** The caller of a request; 401/403 as for any session endpoint, 403 for a wrong control token. */
  async caller(request: Request): Promise<Caller> {
    const token = request.headers.get(CONTROL_HEADER);
    if (token === null) return { kind: "user", user: (await authenticateSession(this.d.auth, request)).user };
    if (!tokenMatches(this.d.controlToken, token)) throw new AppError("forbidden", "the control token is not valid");
    return { kind: "control" };
  }

  /** Prepares the export of a pipeline the caller owns (any pipeline, for the control token). */
  async export(caller: Caller, id: string): Promise<PreparedArchive<ExportManifest>> {
    if (this.d.files === null) throw diskOnly("pipeline export");
    const col = await findCollectionById(this.d.db.reader, id);
    const owned = col?.kind === "pipeline" && (caller.kind === "control" || col.userId === caller.user.id);
    if (!owned) throw notFound("pipeline");
    return await prepareExport(
      { db: this.d.db, vectorStore: this.d.vectorStore, dataDir: this.d.config.dataDir, filePath: this.d.filePath },
      id,
    );
  }

  /** Receives the `archive` part (and `name`, and for the control token `owner`), then imports it. */
  async import(caller: Caller, request: Request): Promise<ImportResult> {
    const files = this.d.files;
    if (files === null) throw diskOnly("pipeline import");
    let tmp: string | null = null;
    try {
      const received = await receiveFile(
        { contentType: request.headers.get("content-type"), body: request.body },
        "archive",
        async (body) => {
          const r = await files.receiveTemp(body, this.d.maxArchiveBytes, "import");
          tmp = r.path;
          return r.size;
        },
      );
      const user = caller.kind === "user" ? caller.user : await ownerOf(this.d.db.reader, received.fields.owner);
      const name = received.fields.name?.trim();
      return await importPipeline(this.d, user, tmp!, name || undefined);
    } catch (err) {
      if (err instanceof ArchiveError) {
        // Its staging path is the server's business: the uploader sent "the archive".
        const message = tmp === null ? err.message : err.message.replaceAll(tmp, "the archive");
        throw new AppError("invalid_request", `import refused: ${message}; nothing was stored`);
      }
      throw err;
    } finally {
      if (tmp) rmSync(tmp, { force: true });
    }
  }
}

async function ownerOf(db: Db, email: string | undefined): Promise<User> {
  if (!email) throw new AppError("invalid_request", "owner: name the user (email) the pipeline is imported for");
  const user = await findUserByEmail(db, email);
  if (!user) throw new AppError("invalid_request", `owner: no user with email ${email}`);
  return user;
}
