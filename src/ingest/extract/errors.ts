/** The one error extraction throws: the document cannot be turned into text, and retrying will not help. */
export class ExtractionError extends Error {
  override name = "ExtractionError";
}

/** The ExtractionError for content ragd cannot index. */
export function unsupported(type: string, label: string): ExtractionError {
  return new ExtractionError(`unsupported file type: ${type} (${label})`);
}
