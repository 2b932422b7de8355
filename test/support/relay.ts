/**
 * A TCP relay on loopback in front of a server another test file may share (the run's
 * Ceph RGW): what a server under test sends to the relay's endpoint reaches the target,
 * until `close()` ends every connection through it and closes its port, which then
 * refuses connections as a stopped server's port does. A test that must see its store
 * gone closes its relay and leaves the shared store to the others.
 */
import { createConnection, createServer, type Socket } from "node:net";

export interface Relay {
  /** http://127.0.0.1:<port>, standing in for the target. */
  endpoint: string;
  close(): Promise<void>;
}

/** Opens a relay to `target`, an http://host:port URL. */
export async function openRelay(target: string): Promise<Relay> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const keep = (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const server = createServer((client) => {
    const upstream = createConnection({ host: to.hostname, port: Number(to.port) });
    keep(client);
    keep(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the relay has no port");
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    close: async () => {
      const closed = new Promise((r) => server.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
