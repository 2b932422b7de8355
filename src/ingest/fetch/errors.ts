/** The one error the fetcher throws. `transient` says whether trying again later may succeed. */
export class FetchError extends Error {
  override name = "FetchError";
  constructor(
    message: string,
    readonly transient: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
