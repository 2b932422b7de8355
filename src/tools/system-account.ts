/**
 * The name of the system account a process runs as: the passwd entry of its effective
 * uid. Not $USER or $LOGNAME, which systemd leaves unset and anyone can set to anything;
 * not os.userInfo() either, whose username Bun takes from $USER.
 */
import { readFileSync } from "node:fs";

/** The account name of `uid` in a passwd file's text, or undefined. */
export function nameInPasswd(passwd: string, uid: number): string | undefined {
  for (const line of passwd.split("\n")) {
    const [name, , id] = line.split(":");
    if (name && id !== undefined && Number(id) === uid && id.trim() !== "") return name;
  }
  return undefined;
}

/**
 * The effective uid's account name: /etc/passwd, then the system's name service
 * (`getent`, for accounts from a directory), else "uid <n>".
 */
export function systemAccountName(uid = process.geteuid?.() ?? -1): string {
  if (uid < 0) return "unknown";
  try {
    const found = nameInPasswd(readFileSync("/etc/passwd", "utf8"), uid);
    if (found) return found;
  } catch {
    // no /etc/passwd (some containers): ask the name service
  }
  try {
    const p = Bun.spawnSync(["getent", "passwd", String(uid)], { stdout: "pipe", stderr: "ignore" });
    const found = p.exitCode === 0 ? nameInPasswd(p.stdout.toString(), uid) : undefined;
    if (found) return found;
  } catch {
    // no getent
  }
  return `uid ${uid}`;
}
