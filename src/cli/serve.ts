/** `ragd serve`: starts the HTTP server and stops it gracefully on SIGTERM/SIGINT. */
import { buildApp } from "../app";
import { publicBaseUrl, type Config } from "../config";
import { removeControlFile, writeControlFile } from "../features/backup/control";
import { recordPeer } from "../http/client-address";
import { servesOnlyLoopback } from "../http/hosts";
import { PgStore } from "../db/pg-store";
import type { CloseHow } from "../db/store";
import { createLogger, type Logger } from "../log";
import { closeServices, createServices, type Services } from "../services";
import { version } from "../version";
import { holdDataDir } from "./data-dir-lock";
import { printFirstRun } from "./first-run";
import { tightenDataDir } from "./private-data-dir";

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** Stops gracefully; `processEnds` when the process exits right after (CloseHow). */
  stop(how?: CloseHow): Promise<void>;
}

/** The routes that prepare an archive (or read one) before they answer. */
const LONG_WORK = /^\/api\/(rag\/pipelines\/[^/]+\/export|rag\/pipelines\/import|admin\/backup)$/;

/** Starts ragd on the configured address; resolves once it is listening. */
export async function startServer(config: Config, log: Logger = createLogger(config.log)): Promise<RunningServer> {
  const services = await createServices(config, log);
  const app = buildApp(services);
  const server = Bun.serve({
    hostname: config.host,
    port: config.port,
    // Every body reader counts bytes against its own limit (JSON, multipart, signed PUT,
    // documents upload) and answers 413 with the error body (docs/API.md, Errors). Bun's
    // bound answers a bare 413 before any of them runs, so it sits far above them all.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    idleTimeout: config.idleTimeoutS,
    fetch: async (req, srv) => {
      recordPeer(req, srv.requestIP(req)?.address);
      // An export, an import or a backup works for minutes before its first byte (staging a
      // million chunks): the idle timeout cut such a response off after 10 s, empty.
      if (req.method === "POST" && LONG_WORK.test(new URL(req.url).pathname)) srv.timeout(req, 0);
      const res = await app.handle(req);
      // The idle timeout ends a response that is still being written, heartbeats or not
      // (an event stream closed at 10.5-12 s with the 10 s default): an event stream is
      // kept for as long as its client stays (docs/API.md, Events).
      if (res.headers.get("content-type")?.startsWith("text/event-stream")) srv.timeout(req, 0);
      return res;
    },
    error: () => new Response('{"error":{"code":"internal_error","message":"unexpected error"}}', { status: 500 }),
  });
  const port = server.port!;
  const url = publicBaseUrl(config, port);
  services.baseUrl.value = url;
  log.info("listening", {
    url: `http://${config.host}:${port}`,
    publicUrl: url,
    port,
    dataDir: config.dataDir,
    version,
  });
  // For `ragd backup` on this machine (features/backup/control.ts).
  writeControlFile(config.dataDir, {
    pid: process.pid,
    url: loopbackUrl(config.host, port),
    token: services.backups.controlToken,
  });
  if (servesOnlyLoopback(config)) {
    log.warn("listening on every interface, but only loopback host names are served (421 for others)", {
      fix: "set RAGD_PUBLIC_URL or RAGD_ALLOWED_HOSTS to the host names clients use to reach this server",
    });
  }
  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    services,
    stop: (how = {}) =>
      (stopping ??= (async () => {
        removeControlFile(config.dataDir);
        services.events.closeStreams(); // an event stream never finishes on its own
        await server.stop(false); // lets in-flight requests finish
        await closeServices(services, how);
        log.info("stopped");
      })()),
  };
}

/** The address a command on this machine reaches the server at. */
function loopbackUrl(host: string, port: number): string {
  const h =
    host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** Runs until a signal arrives, then stops and exits 0. */
export async function serveCommand(config: Config): Promise<void> {
  const log = createLogger(config.log);
  // One server per data directory: two would share the SQLite writer and each sweep the other's uploads.
  holdDataDir(config.dataDir, "stop it, or give this one another --data-dir", (reason) =>
    log.warn("the data directory is not locked; run one server on it at a time", { reason }),
  );
  const { tightened, refused } = tightenDataDir(config.dataDir);
  if (tightened.length)
    log.warn("the data directory was open to other users; only this user may read it now", {
      dataDir: config.dataDir,
      tightened,
    });
  if (refused.length)
    log.warn("the data directory has entries other users may read, owned by another user", {
      dataDir: config.dataDir,
      refused,
      fix: "chown them to the user ragd runs as, or chmod go= them",
    });
  const running = await startServer(config, log);
  await printFirstRun(config, running.url, () => running.services.auth.awaitsFirstAccount());
  const shutdown = (signal: string, code = 0) => {
    log.info("shutting down", { signal });
    running.stop({ processEnds: true }).then(
      () => process.exit(code),
      (err) => {
        log.error("shutdown failed", { error: err });
        process.exit(1);
      },
    );
  };
  const { db } = running.services;
  if (db instanceof PgStore)
    db.watchServing((found) => {
      if (found === "retaken")
        return log.warn(
          "PostgreSQL had ended this server's session (a restart?); its claim on the database is taken again",
        );
      // Two servers alone on one database is what the claim is there to prevent: this one leaves it.
      log.error("another ragd server took the database while it was unreachable; this one stops");
      shutdown("database taken", 2);
    });
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}
