/**
 * A Git repository served over smart HTTP on loopback: `git http-backend` run as a CGI
 * program behind Bun.serve, one process a request, as a forge would serve it. The tests
 * change the repository through a working copy beside it (commit, push, force-push).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface GitServer {
  /** The clone URL of the repository. */
  url: string;
  /** Runs git in the working copy; its output, trimmed (throws on failure). */
  git: (...args: string[]) => string;
  /** Writes a file of the working copy (folders made). */
  write: (path: string, text: string) => void;
  work: string;
  requests: () => number;
  /** The Authorization headers the requests carried. */
  authorizations: () => string[];
  stop: () => Promise<void>;
  /** Serves again on the same port after stop(). */
  start: () => Promise<void>;
}

const ENV = {
  GIT_AUTHOR_NAME: "Tester",
  GIT_AUTHOR_EMAIL: "tester@example.com",
  GIT_COMMITTER_NAME: "Tester",
  GIT_COMMITTER_EMAIL: "tester@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: "/nonexistent",
};

function run(cwd: string, args: string[], input?: Uint8Array, env: Record<string, string> = {}) {
  const p = Bun.spawnSync(["git", ...args], { cwd, stdin: input, env: { ...process.env, ...ENV, ...env } });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout;
}

/** Splits a CGI answer into its status, headers and body. */
function cgiResponse(out: Uint8Array): Response {
  const buf = Buffer.from(out);
  let end = buf.indexOf("\r\n\r\n");
  let gap = 4;
  if (end < 0) [end, gap] = [buf.indexOf("\n\n"), 2];
  const headers = new Headers();
  let status = 200;
  for (const line of buf.subarray(0, end).toString().split(/\r?\n/)) {
    const at = line.indexOf(":");
    const name = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
    else headers.append(name, value);
  }
  return new Response(buf.subarray(end + gap), { status, headers });
}

/**
 * A bare repository `name.git` under `root`, its working copy on branch main, served at
 * once; with `requireAuth` (an Authorization header), any request without it is 401.
 */
export async function startGitServer(
  root: string,
  name = "docs",
  options: { requireAuth?: string } = {},
): Promise<GitServer> {
  const bare = join(root, "served", `${name}.git`);
  const work = join(root, "work", name);
  mkdirSync(bare, { recursive: true });
  mkdirSync(work, { recursive: true });
  run(bare, ["init", "--bare", "--initial-branch=main"]);
  run(work, ["init", "--initial-branch=main"]);
  run(work, ["remote", "add", "origin", bare]);
  let requests = 0;
  const authorizations: string[] = [];
  const serve = (port: number) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch: handle,
    });
  async function handle(req: Request): Promise<Response> {
    requests++;
    const auth = req.headers.get("authorization");
    if (auth) authorizations.push(auth);
    if (options.requireAuth && auth !== options.requireAuth)
      return new Response("credentials refused", { status: 401, headers: { "www-authenticate": 'Basic realm="git"' } });
    const u = new URL(req.url);
    const body = new Uint8Array(await req.arrayBuffer());
    const p = Bun.spawnSync(["git", "http-backend"], {
      stdin: body,
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: join(root, "served"),
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: decodeURIComponent(u.pathname),
        REQUEST_METHOD: req.method,
        QUERY_STRING: u.search.slice(1),
        CONTENT_TYPE: req.headers.get("content-type") ?? "",
        CONTENT_LENGTH: String(body.byteLength),
        HTTP_GIT_PROTOCOL: req.headers.get("git-protocol") ?? "",
        REMOTE_ADDR: "127.0.0.1",
      },
    });
    if (p.exitCode !== 0) return new Response(p.stderr.toString(), { status: 500 });
    return cgiResponse(p.stdout);
  }
  let server = serve(0);
  const port = server.port;
  return {
    url: `http://127.0.0.1:${port}/${name}.git`,
    git: (...args) => run(work, args).toString().trim(),
    write: (path, text) => {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), text);
    },
    work,
    requests: () => requests,
    authorizations: () => authorizations,
    stop: () => server.stop(true),
    start: async () => {
      server = serve(port!);
    },
  };
}
