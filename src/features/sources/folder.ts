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

/** The source types that take each folder field: a bucket source takes the rules on its files too. */
const TAKEN_BY: Record<"path" | "include" | "exclude" | "maxFileMb", string[]> = {
  path: ["folder"],
  include: ["folder", "s3"],
  exclude: ["folder", "s3"],
  maxFileMb: ["folder", "s3"],
};

/** 400 for the folder fields on a source of a type that does not take them. */
export function refuseFolderFields(b: FolderInput & { type: string }): void {
  for (const [field, types] of Object.entries(TAKEN_BY) as [keyof typeof TAKEN_BY, string[]][]) {
    if (b[field] === undefined || types.includes(b.type)) continue;
    const message = `is for ${types.join(" and ")} sources`;
    throw new AppError("invalid_request", `${field}: ${message}`, [{ field, message }]);
  }
}
