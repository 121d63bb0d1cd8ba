import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  errorReply,
  type JSONRPCNotification,
  type JSONRPCReply,
  type JSONRPCRequest,
  METHOD_NOT_FOUND,
  REQUEST_TIMEOUT,
  type RequestId,
} from "./jsonrpc.js";

/** Anything that speaks MCP over a transport: an SDK McpServer or Server. */
export interface Connectable {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/** Sees each forwarded request with the server's reply (before the caller's id is restored). */
export type ReplyObserver = (request: JSONRPCRequest, reply: JSONRPCReply) => void;

interface Pending {
  request: JSONRPCRequest;
  callerId: RequestId;
  resolve: (reply: JSONRPCReply) => void;
  timer: NodeJS.Timeout;
}

/**
 * Our end of an in-memory linked pair whose other end is an MCP server. Requests go in with a
 * private id, so callers' ids (equal ids in one batch, concurrent requests with the same id) can
 * never be confused; each reply comes back with the caller's exact id.
 */
export class Bridge {
  private nextPrivateId = 1;
  private readonly pending = new Map<number, Pending>();
  private observer: ReplyObserver | undefined;

  private constructor(
    private readonly ours: InMemoryTransport,
    private readonly server: Connectable,
  ) {
    ours.onmessage = (message) => this.receive(message);
  }

  static async attach(server: Connectable): Promise<Bridge> {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    const bridge = new Bridge(ours, server);
    await server.connect(theirs);
    return bridge;
  }

  /** Forwards one request; resolves with its reply, or with `-32001` once `deadlineAt` (epoch ms) passes. */
  request(message: JSONRPCRequest, deadlineAt: number): Promise<JSONRPCReply> {
    const privateId = this.nextPrivateId++;
    return new Promise<JSONRPCReply>((resolve) => {
      const timer = setTimeout(() => this.expire(privateId), Math.max(0, deadlineAt - Date.now()));
      this.pending.set(privateId, { request: message, callerId: message.id, resolve, timer });
      this.send({ ...message, id: privateId }).catch(() => this.settle(privateId, undefined));
    });
  }

  observe(observer: ReplyObserver): void {
    this.observer = observer;
  }

  async notify(message: JSONRPCNotification): Promise<void> {
    await this.send(message);
  }

  get inFlight(): number {
    return this.pending.size;
  }

  async close(): Promise<void> {
    for (const privateId of [...this.pending.keys()]) this.settle(privateId, undefined);
    await this.server.close();
  }

  private async send(message: JSONRPCMessage): Promise<void> {
    await this.ours.send(message);
  }

  private receive(message: JSONRPCMessage): void {
    if ("method" in message) {
      // A server-to-client request cannot reach a client over a JSON response: refuse it so nothing waits.
      if ("id" in message) {
        const refusal = errorReply(
          message.id,
          METHOD_NOT_FOUND,
          "This client cannot receive server requests",
        );
        void this.send(refusal).catch(() => undefined);
      }
      return;
    }
    if (typeof message.id === "number") this.settle(message.id, message as JSONRPCReply);
  }

  private expire(privateId: number): void {
    if (!this.pending.has(privateId)) return;
    this.settle(privateId, undefined, errorReplyFor(REQUEST_TIMEOUT, "Request timed out"));
    const cancel: JSONRPCNotification = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: privateId, reason: "Request timed out" },
    };
    void this.send(cancel).catch(() => undefined);
  }

  /** Resolves a pending request with the server's reply (or a given error) under the caller's own id. */
  private settle(privateId: number, reply: JSONRPCReply | undefined, fallback = internalFailure): void {
    const entry = this.pending.get(privateId);
    if (!entry) return;
    this.pending.delete(privateId);
    clearTimeout(entry.timer);
    if (reply) this.observer?.(entry.request, reply);
    entry.resolve(reply ? withId(reply, entry.callerId) : fallback(entry.callerId));
  }
}

function withId(reply: JSONRPCReply, id: RequestId): JSONRPCReply {
  const { jsonrpc: _version, id: _privateId, ...outcome } = reply;
  return { jsonrpc: "2.0", id, ...outcome } as JSONRPCReply;
}

type ErrorFor = (id: RequestId) => JSONRPCReply;

const errorReplyFor =
  (code: number, message: string): ErrorFor =>
  (id) =>
    errorReply(id, code, message);

const internalFailure = errorReplyFor(-32603, "Internal error");
