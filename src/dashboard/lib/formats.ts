/**
 * The file types ragd indexes, for the file pickers (docs/API.md, "What text is indexed").
 * A test keeps these extensions equal to the server's list.
 */
export const FILE_EXTENSIONS = [
  "pdf",
  "docx",
  "docm",
  "xlsx",
  "xlsm",
  "ods",
  "pptx",
  "pptm",
  "odp",
  "odt",
  "epub",
  "rtf",
  "html",
  "htm",
  "xhtml",
  "md",
  "markdown",
  "csv",
  "tsv",
  "json",
  "jsonl",
  "ndjson",
  "txt",
  "text",
  "png",
  "jpg",
  "jpeg",
  "tif",
  "tiff",
  "webp",
];

/** The `accept` attribute: the extensions above, and any text file (logs, code) as plain text. */
export const FILE_ACCEPT = [...FILE_EXTENSIONS.map((e) => `.${e}`), "text/*"].join(",");
