/** The one error extraction throws: the document cannot be turned into text, and retrying will not help. */
export class ExtractionError extends Error {
  override name = "ExtractionError";
}
