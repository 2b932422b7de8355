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

/** The files of a file input (several, or a folder's). */
export function pickedFromList(list: FileList | null | undefined): PickedFile[] {
  return Array.from(list ?? [], (file) => ({ file, path: file.webkitRelativePath || file.name }));
}

/** The files of a drop, folders walked; hidden entries (a name starting with ".") left out. */
export async function pickedFromDrop(data: DataTransfer | null): Promise<PickedFile[]> {
  if (!data) return [];
  const entries = Array.from(data.items, (item) => item.webkitGetAsEntry?.() ?? null);
  if (entries.some((e) => e === null)) return pickedFromList(data.files);
  const out: PickedFile[] = [];
  for (const entry of entries as FileSystemEntry[]) await walk(entry, "", out);
  return out;
}

async function walk(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  if (out.length > MAX_PICKED || entry.name.startsWith(".")) return;
  const path = prefix + entry.name;
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, path });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches until it answers none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return;
    for (const child of batch) await walk(child, `${path}/`, out);
  }
}
