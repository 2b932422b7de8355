/** What a folder source's sync job is given and what it reports (docs/API.md, "Folder sources"). */
import type { FolderSettings } from "../../core/folder-settings";

/** What a sync knew of a file: equal size and modification time spare it the hashing. */
export interface KnownFile {
  size: number;
  modifiedAt: string;
  hash: string | null;
}

export interface FolderJob {
  settings: FolderSettings;
  /** The allowed roots, as real paths: the folder must still be under one of them. */
  roots: string[];
  /** The files the source holds, by relative path. */
  known: Record<string, KnownFile>;
  /** A re-index rebuilds the files from the folder by tasks of their own: nothing is synced. */
  skip?: boolean;
}

/** A file the sync found, with the SHA-256 of its bytes (a bucket's object: its ETag, bucket/list.ts). */
export interface ScannedFile {
  path: string;
  size: number;
  modifiedAt: string;
  hash: string;
  /** A bucket's object: its ETag, in its metadata too. */
  etag?: string;
}

/** What the walk of a folder found. */
export interface FolderScan {
  files: ScannedFile[];
  /** Files and folders not taken, with why: what was indexed of them stays. */
  failures: { path: string; reason: string }[];
  /** Folders under the root that could not be listed: the files held under them stay. */
  unlisted: string[];
}

/** A job's file of a folder: where it is read, and how large it may be. */
export interface FolderFileRef {
  root: string;
  path: string;
  maxBytes: number;
}

export type FolderEvent = { type: "folder-scanned"; jobId: string; scan: FolderScan | null };

/** A sync or a file read that cannot go on: its message is the source's error. */
export class FolderError extends Error {}
