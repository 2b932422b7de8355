/**
 * Files chosen in a file dialog or dropped on the page, each with its path relative to
 * what was chosen: a dropped folder is walked through its directory entries (the drop's
 * `webkitGetAsEntry`), a folder chosen in the dialog gives `webkitRelativePath`.
 */

export interface PickedFile {
  file: File;
  /** `folder/sub/name.pdf` for a file inside a chosen folder; the file's name otherwise. */
  path: string;
}

/** The most files one pick takes: beyond it the page refuses the pick rather than freeze. */
export const MAX_PICKED = 5000;

/** A pick: its files, and how many it held (past MAX_PICKED a dropped folder's files are counted, not read). */
export interface Picked {
  files: PickedFile[];
  count: number;
}

/** The files of a file input (several, or a folder's). */
export function pickedFromList(list: FileList | null | undefined): Picked {
  const files = Array.from(list ?? [], (file) => ({ file, path: file.webkitRelativePath || file.name }));
  return { files, count: files.length };
}

/**
 * The files of a drop, folders walked; hidden entries (a name starting with ".") left out.
 * A file or folder the browser cannot read fails the pick, naming its path.
 */
export async function pickedFromDrop(data: DataTransfer | null): Promise<Picked> {
  if (!data) return { files: [], count: 0 };
  const entries = Array.from(data.items, (item) => item.webkitGetAsEntry?.() ?? null);
  if (entries.some((e) => e === null)) return pickedFromList(data.files);
  const out: Picked = { files: [], count: 0 };
  for (const entry of entries as FileSystemEntry[]) await walk(entry, "", out);
  return out;
}

async function walk(entry: FileSystemEntry, prefix: string, out: Picked): Promise<void> {
  if (entry.name.startsWith(".")) return;
  const path = prefix + entry.name;
  if (entry.isFile) {
    // Past the limit the pick is refused: the rest is counted, for the message, not read.
    if (++out.count > MAX_PICKED) return;
    const file = await named(path, new Promise<File>((ok, fail) => (entry as FileSystemFileEntry).file(ok, fail)));
    out.files.push({ file, path });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches until it answers none.
  for (;;) {
    const batch = await named(path, new Promise<FileSystemEntry[]>((ok, fail) => reader.readEntries(ok, fail)));
    if (batch.length === 0) return;
    for (const child of batch) await walk(child, `${path}/`, out);
  }
}

/** The browser's refusal to read `path`, with the path in front of its message. */
async function named<T>(path: string, read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message || String(err)}`);
  }
}
