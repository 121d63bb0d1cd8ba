import { Agent, createServer, request } from "node:http";
import { closeServer, listenLoopback } from "../support/net.js";

/** The DynamoDB operations that write. */
export const WRITE_OPERATIONS: ReadonlySet<string> = new Set([
  "PutItem",
  "UpdateItem",
  "DeleteItem",
  "BatchWriteItem",
  "TransactWriteItems",
]);

export interface DynamoCounter {
  /** Use as DYNAMODB_ENDPOINT: requests are counted, then forwarded to the real endpoint. */
  endpoint: string;
  /** Requests seen so far, by operation (the part of `X-Amz-Target` after the dot). */
  counts(): Record<string, number>;
  close(): Promise<void>;
}

/** Sum of the write operations in `counts`. */
export function writes(counts: Record<string, number>): number {
  let total = 0;
  for (const [operation, n] of Object.entries(counts)) if (WRITE_OPERATIONS.has(operation)) total += n;
  return total;
}

/** `after - before`, per operation, without the zeros. */
export function difference(
  after: Record<string, number>,
  before: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [operation, n] of Object.entries(after)) {
    const d = n - (before[operation] ?? 0);
    if (d !== 0) out[operation] = d;
  }
  return out;
}

/**
 * A plain HTTP proxy on 127.0.0.1 in front of a DynamoDB API endpoint (dynalite) that counts the
 * requests by `X-Amz-Target` (e.g. `DynamoDB_20120810.PutItem` → PutItem). SigV4 still verifies:
 * the Host header is passed through unchanged, and dynalite does not check signatures anyway.
 */
export async function startDynamoCounter(upstream: string): Promise<DynamoCounter> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  const tally = new Map<string, number>();
  const server = createServer((incoming, outgoing) => {
    const header = incoming.headers["x-amz-target"];
    const operation = (Array.isArray(header) ? header[0] : header)?.split(".").pop() ?? "(none)";
    tally.set(operation, (tally.get(operation) ?? 0) + 1);
    const forward = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
        agent,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on("error", () => outgoing.destroy());
    incoming.pipe(forward);
  });
  const endpoint = await listenLoopback(server);
  return {
    endpoint,
    counts: () => Object.fromEntries(tally),
    close: async () => {
      await closeServer(server);
      agent.destroy();
    },
  };
}
