/**
 * A progress bar on a terminal: one line redrawn in place, at most ten times a second;
 * nothing at all when the stream is not a terminal (a log or a pipe gets the summary only).
 */
const WIDTH = 30;
const EVERY_MS = 100;

export class Progress {
  private done = 0;
  private drawnAt = 0;
  private readonly on: boolean;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly total: number,
    private readonly unit: string,
  ) {
    this.on = out.isTTY === true && total > 0;
  }

  /** One more done; redraws when the last draw is old enough, or at the end. */
  step(): void {
    this.done++;
    const now = performance.now();
    if (!this.on || (now - this.drawnAt < EVERY_MS && this.done < this.total)) return;
    this.drawnAt = now;
    const filled = Math.round((WIDTH * this.done) / this.total);
    this.out.write(`\r[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${this.done}/${this.total} ${this.unit}`);
  }

  /** Ends the bar's line, so what is printed next starts on its own. */
  end(): void {
    if (this.on && this.done > 0) this.out.write("\n");
  }
}
