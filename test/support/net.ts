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

/** A URL on 127.0.0.1 where nothing listens: connecting to it is refused. */
export async function refusedUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
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
