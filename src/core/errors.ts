/**
 * The one error type of the layers below HTTP that refuse a request for what it asks
 * (core/, backup/). It knows nothing of HTTP: its kind is the public error code it
 * stands for, and src/http/errors.ts gives that its status and body.
 */

/** `not_found`: the thing does not exist (or is not the caller's); `conflict`: it clashes with what is stored. */
export type DomainErrorKind = "not_found" | "conflict";

/** A field at fault and the problem with it, as the error body's details name it. */
export interface DomainProblem {
  field: string;
  message: string;
}

/** A refusal with a message a person can act on, and the fields at fault if any. */
export class DomainError extends Error {
  override readonly name = "DomainError";

  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly problems?: DomainProblem[],
  ) {
    super(message);
  }
}

/** The common refusal: `what` does not exist; other users' things are never said to exist. */
export const missing = (what: string) => new DomainError("not_found", `${what} not found`);
