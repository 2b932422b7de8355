/** Reads a text/event-stream body frame by frame, as an EventSource would. */
export interface SseFrame {
  id: string | null;
  event: string;
  data: any;
}

export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  /** Comment lines seen (heartbeats). */
  comments: string[] = [];

  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }

  /** The next event frame; throws after `timeoutMs` without one. */
  async next(timeoutMs = 10_000): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = this.take();
      if (frame) return frame;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no event frame in time");
      let timer: Timer | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<null>((r) => (timer = setTimeout(() => r(null), left))),
      ]);
      clearTimeout(timer);
      if (chunk === null) continue;
      if (chunk.done) throw new Error("the stream ended");
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Frames until one matches `until` (included). */
  async collect(until: (f: SseFrame) => boolean, timeoutMs = 20_000): Promise<SseFrame[]> {
    const out: SseFrame[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = await this.next(Math.max(1, deadline - Date.now()));
      out.push(f);
      if (until(f)) return out;
    }
  }

  /** Hangs up, as a client that goes away. */
  async close(): Promise<void> {
    await this.reader.cancel();
  }

  private take(): SseFrame | null {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end < 0) return null;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let id: string | null = null;
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) this.comments.push(line);
        else if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length > 0) return { id, event, data: JSON.parse(data.join("\n")) };
    }
  }
}
