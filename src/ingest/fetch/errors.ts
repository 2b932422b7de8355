/** The one error the fetcher throws. `transient` says whether trying again later may succeed. */
export class FetchError extends Error {
  override name = "FetchError";
  constructor(
    message: string,
    readonly transient: boolean,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    this.status = options?.status ?? null;
  }

  /** The HTTP status that refused the fetch, when it was one. */
  readonly status: number | null;
}
