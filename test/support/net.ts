import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("could not obtain a free port");
  return address.port;
}

/**
 * A URL on 127.0.0.1 where nothing listens: connecting to it is refused. Its port is below the
 * kernel's ephemeral range, which every server the tests start on port 0 takes its port from: a
 * port freed from that range could be handed to another test's server running beside this one, and
 * the "refused" URL would then answer (seen once in CI: HTTP 200 where a refusal was expected).
 */
export async function refusedUrl(): Promise<string> {
  const lowest = ephemeralRangeStart();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * Math.max(1, lowest - 20_000));
    if (await isFree(port)) return `http://127.0.0.1:${port}`;
  }
  throw new Error("no free port below the ephemeral range");
}

/** The first port the kernel hands out for port 0 (Linux: ip_local_port_range; 32768 elsewhere). */
function ephemeralRangeStart(): number {
  try {
    const first = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > 20_001 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

/** Listens on 127.0.0.1 on an ephemeral port and returns the base URL. */
export async function listenLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("server has no TCP address");
  return `http://127.0.0.1:${address.port}`;
}

/** Closes a server, dropping any open (even hanging) connections so close never waits on them. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/** A server listening on 127.0.0.1 that records the requests it gets: its URL, them, and a close that runs once. */
export interface RecordingServer {
  url: string;
  /** Path and query of every request received, in order. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/** Starts `server` on 127.0.0.1 (see listenLoopback); `requests` is the list its handler records into. */
export async function listenRecording(server: Server, requests: readonly string[]): Promise<RecordingServer> {
  const url = await listenLoopback(server);
  let closing: Promise<void> | undefined;
  return {
    url,
    get requests() {
      return requests;
    },
    close() {
      closing ??= closeServer(server);
      return closing;
    },
  };
}
