/**
 * What scripts/test.ts reads in the output of bun's test runner as it copies it through:
 * each file's passed and failed tests, each failure with its error, bun's summary, and the
 * files a crashed test worker took down.
 */

/** At most how many lines before a `(fail)` line are kept with it: bun prints a test's error above its name. */
const FAILURE_CONTEXT = 40;

export interface Failure {
  /** The test file, as bun names it in its headings (`test/x.test.ts`). */
  file: string;
  /** The file's heading, the lines since the test before it (its error) and its `(fail)` line. */
  text: string;
}

/** One runner process's output, as far as it has been read. */
export class RunnerOut {
  /** The last 4,000 characters, where bun's summary is. */
  tail = "";
  /** Test lines as printed: the only count left when bun itself dies before its summary. */
  pass = 0;
  fail = 0;
  readonly failures: Failure[] = [];
  /** Each file's passed and failed tests, from its test lines. */
  readonly files = new Map<string, { pass: number; fail: number }>();
  /** The files a crashed test worker took down: the one it crashed in, and those it aborted. */
  readonly aborted: string[] = [];
  /** bun's line naming a crashed worker, if one crashed. */
  crash: string | null = null;

  /** A number of bun's summary ("N pass", "N fail"); -1 before it is printed. */
  summary(word: "pass" | "fail"): number {
    return Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(this.tail)?.[1] ?? -1);
  }

  /** A reader of one of the runner's streams (each keeps its own place in bun's headings). */
  reader(): (line: string) => void {
    const log = new StreamLog(this);
    return (line) => log.read(line);
  }
}

/** One stream's lines: which file they belong to, and what has been printed since its last test. */
class StreamLog {
  private file = "";
  private since: string[] = [];
  private closing = false;

  constructor(private readonly out: RunnerOut) {}

  read(line: string): void {
    const out = this.out;
    out.tail = `${out.tail}${line}\n`.slice(-4000);
    // bun's closing lists ("N tests failed:") repeat the names: counted once, where they ran.
    if (this.closing) return;
    const taken = /^✗ (?:\.\/)?(\S+) \((worker crashed|aborted)/.exec(line);
    if (/^\d+ tests? failed:$/.test(line)) this.closing = true;
    else if (taken) {
      out.aborted.push(taken[1]!);
      if (taken[2] === "worker crashed") out.crash = line.slice(2);
    } else if (/^\S.*\.test\.tsx?:$/.test(line)) [this.file, this.since] = [line.slice(0, -1), []];
    else if (/^\((pass|skip|todo)\) /.test(line)) {
      if (line.startsWith("(pass) ")) this.count("pass");
      this.since = [];
    } else if (line.startsWith("(fail) ")) {
      this.count("fail");
      out.failures.push({ file: this.file, text: [`${this.file}:`, ...this.since, line].join("\n") });
      this.since = [];
    } else {
      this.since.push(line);
      if (this.since.length > FAILURE_CONTEXT) this.since.shift();
    }
  }

  private count(kind: "pass" | "fail"): void {
    this.out[kind]++;
    const file = this.out.files.get(this.file) ?? { pass: 0, fail: 0 };
    file[kind]++;
    this.out.files.set(this.file, file);
  }
}
