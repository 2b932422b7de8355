/**
 * The password of `ragd user create` when --password is absent: typed at a prompt
 * without echo on a terminal (twice, to catch a typo), or the first line of standard
 * input otherwise (`… | ragd user create --email E`). A password on the command line
 * is visible to every user of the machine in process listings; these two are not.
 */
import { ConfigError } from "../config";

/** Reads the password from the terminal or from standard input. */
export async function readPassword(stdin = process.stdin, prompt = process.stderr): Promise<string> {
  if (!stdin.isTTY) return firstLine(await Bun.stdin.text());
  const first = await askHidden(stdin, prompt, "password: ");
  const again = await askHidden(stdin, prompt, "password again: ");
  if (first !== again) throw new ConfigError("the two passwords differ");
  return first;
}

/** The first line, without its line ending: what `echo secret |` sends. */
export function firstLine(text: string): string {
  const end = text.search(/\r?\n/);
  return end < 0 ? text : text.slice(0, end);
}

/**
 * One line typed at the terminal in raw mode, so nothing is echoed. Raw mode comes before
 * the question: someone typing as soon as it shows must not be echoed by the terminal.
 */
function askHidden(stdin: NodeJS.ReadStream, prompt: NodeJS.WriteStream, question: string): Promise<string> {
  stdin.setRawMode(true);
  stdin.resume();
  prompt.write(question);
  return new Promise((resolve, reject) => {
    let typed = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      prompt.write("\n");
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003" || ch === "\u0004") return done(new ConfigError("no password given"));
        if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on("data", onData);
  });
}
