/**
 * The one error type of retrieval/. Its codes are public error codes
 * (docs/API.md, Errors), so the HTTP layer maps it without knowing why it was
 * thrown; retrieval knows nothing of HTTP.
 */

/** `invalid_request`: the search request is refused; `embedding_unavailable`: the query cannot be embedded. */
export type RetrievalErrorCode = "invalid_request" | "embedding_unavailable";

/** A search that cannot be answered, with a message a person can act on. */
export class RetrievalError extends Error {
  override readonly name = "RetrievalError";

  constructor(
    readonly code: RetrievalErrorCode,
    message: string,
    /** The request field at fault, with the problem alone (for the error's details). */
    readonly field?: { field: string; message: string },
  ) {
    super(message);
  }
}
