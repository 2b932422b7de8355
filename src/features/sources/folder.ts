/**
 * The settings of a folder source as the sources API takes them (docs/API.md, "Folder
 * sources"), checked on create against RAGD_FOLDER_ROOTS.
 */
import { type FolderInput, type FolderSettings, readFolderSettings } from "../../core/folder-settings";
import { AppError } from "../../http/errors";

/** The folder settings of a create body; 400 naming the problem (no roots allowed, a path outside them). */
export function checkFolderSettings(b: FolderInput, roots: string[]): FolderSettings {
  const read = readFolderSettings(b, roots);
  if (!Array.isArray(read)) return read;
  throw new AppError("invalid_request", `${read[0]!.field}: ${read[0]!.message}`, read.slice(0, 20));
}

/** 400 for the folder fields on a source of another type. */
export function refuseFolderFields(b: FolderInput & { type: string }): void {
  if (b.type === "folder") return;
  for (const field of ["path", "include", "exclude", "maxFileMb"] as const)
    if (b[field] !== undefined)
      throw new AppError("invalid_request", `${field}: is for folder sources`, [
        { field, message: "is for folder sources" },
      ]);
}
