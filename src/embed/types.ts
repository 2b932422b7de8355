/** The one interface every embedding backend implements. */

export interface Embedder {
  /** The model name as the pipeline stores it (e.g. "builtin", "ollama/nomic-embed-text"). */
  readonly name: string;
  /**
   * Embeds texts in order; one vector per text, all of the model's dimension.
   * Vectors are L2-normalised so that cosine distance is meaningful.
   * Throws EmbeddingError with a message a person can act on. `onDone`, when given,
   * hears of texts[from .. from + count) as they are embedded (remote models), so a
   * long request can report progress before it ends.
   */
  embed(texts: string[], signal?: AbortSignal, onDone?: (from: number, count: number) => void): Promise<Float32Array[]>;
  /** The vector dimension; known after the first embed call for remote models. */
  dimensions(): Promise<number>;
}

/** Why an embedding failed; `transient` failures are worth retrying later. */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = "EmbeddingError";
  }
}
