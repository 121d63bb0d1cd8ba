import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, ProgressToken } from "@modelcontextprotocol/sdk/types.js";
import { type RequestContext, timeLeft } from "../../context.js";
import { META_KEYS } from "../../protocol/envelope.js";
import {
  ErrorCode,
  errorReply,
  type JSONRPCNotification,
  type JSONRPCReply,
  type JSONRPCRequest,
  type Reply,
  type RequestId,
  serverFault,
} from "../../protocol/jsonrpc.js";
import { invalidParams } from "./params.js";

/** Anything that speaks MCP over a transport: the SDK's Server (src/mcp/server.ts), or its McpServer in tests. */
export interface Connectable {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/** What the server may ask the bridge about a request it is handling, by the id it received. */
export interface ForwardedRequests {
  /** The context (deadline, abort signal, caller) of the request forwarded under this id. */
  contextOf(requestId: RequestId): RequestContext | undefined;
  /** Answers the request forwarded under this id as a server fault (HTTP 500); the server logs the cause. */
  fault(requestId: RequestId): void;
  /** Tells that the reply to the request forwarded under this id will take at most `bytes` bytes, id aside. */
  boundReply(requestId: RequestId, bytes: number): void;
  /**
   * Set when every request reaches the server with its params already checked against its method's
   * schema (src/mcp/bridge/params.ts): the server then has the SDK route on the method alone.
   */
  readonly paramsChecked?: true;
}

/** Builds the MCP server a bridge forwards to; the server reads each request's context through `forwarded`. */
export type ServerFactory = (forwarded: ForwardedRequests) => Connectable;

/** Sees each forwarded request with the server's reply (before the caller's id is restored). */
export type ReplyObserver = (request: JSONRPCRequest, reply: JSONRPCReply) => void;

interface Pending {
  request: JSONRPCRequest;
  context: RequestContext;
  resolve: (reply: Reply) => void;
  timer: NodeJS.Timeout;
  /** Sent to the server (else still waiting for one of the MAX_IN_FLIGHT places). */
  sent: boolean;
  /** The most bytes the server said its reply takes. */
  bound?: number;
  /** The `progressToken` the caller sent, when its progress has somewhere to go (`context.notify`). */
  progressToken?: ProgressToken;
  /** The log level a 2026-07-28 caller asked for (`_meta` logLevel), when its logs have somewhere to go. */
  logLevel?: string;
}

/**
 * Requests of one bridge the server works on at once; the others wait their turn, in order. A batch of
 * 100 tool calls would otherwise make 100 upstream calls at once (300 with retries).
 */
export const MAX_IN_FLIGHT = 8;

/** JSON-RPC has no code for it; -32800 is the one LSP gives a request its client cancelled. */
export const REQUEST_CANCELLED = -32800;

/**
 * Our end of an in-memory linked pair whose other end is an MCP server. Requests go in with a
 * private id, so callers' ids (equal ids in one batch, concurrent requests with the same id) can
 * never be confused; each reply comes back with the caller's exact id. A request still running at
 * its context's deadline is answered `-32001`, and the server is told to cancel it. (A timer at the
 * deadline, not a listener on the context's signal: the signal fires at that same moment, and is
 * not made at all for a request that does no I/O: bench case warm-tools-call.)
 */
export class Bridge implements ForwardedRequests {
  /** Every request is checked by `invalidParams` before it is forwarded. */
  readonly paramsChecked = true;
  private nextPrivateId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Private ids waiting for a place, oldest first. */
  private readonly waiting: number[] = [];
  private sending = 0;
  private closing = false;
  private observer: ReplyObserver | undefined;
  /** Set once a request was given up on (deadline, fault): its handler may still be running. */
  private abandoned = false;
  private readonly ours: InMemoryTransport;
  private readonly server: Connectable;
  private readonly connecting: Promise<void>;

  private constructor(makeServer: ServerFactory) {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    this.ours = ours;
    this.server = makeServer(this);
    ours.onmessage = (message) => this.receive(message);
    this.connecting = this.server.connect(theirs);
  }

  static async open(makeServer: ServerFactory): Promise<Bridge> {
    const bridge = new Bridge(makeServer);
    await bridge.connecting;
    return bridge;
  }

  /** Forwards one request; resolves with its reply, or with `-32001` once the context's deadline passes. */
  request(message: JSONRPCRequest, context: RequestContext): Promise<Reply> {
    const refusal = invalidParams(message);
    if (refusal) return Promise.resolve({ message: refusal });
    const left = timeLeft(context);
    if (left <= 0) {
      context.report?.timedOut();
      return Promise.resolve(timedOut(message.id));
    }
    const privateId = this.nextPrivateId++;
    return new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => this.expire(privateId), left);
      this.pending.set(privateId, { request: message, context, resolve, timer, sent: false });
      if (this.sending < MAX_IN_FLIGHT) this.forward(privateId);
      else this.waiting.push(privateId);
    });
  }

  observe(observer: ReplyObserver): void {
    this.observer = observer;
  }

  /**
   * Forwards a notification. A cancellation names the caller's request id, which the server never saw:
   * it is mapped to the private id of this bridge's request with that id (and dropped when none has
   * it), and that request is answered at once as cancelled.
   */
  async notify(message: JSONRPCNotification): Promise<void> {
    if (message.method !== "notifications/cancelled") {
      await this.send(message);
      return;
    }
    const callerId = (message.params as { requestId?: unknown } | undefined)?.requestId;
    for (const [privateId, entry] of [...this.pending]) {
      if (entry.request.id !== callerId) continue;
      this.settle(privateId, undefined, cancelled);
      if (entry.sent) await this.send({ ...message, params: { ...message.params, requestId: privateId } });
    }
  }

  get inFlight(): number {
    return this.pending.size;
  }

  contextOf(requestId: RequestId): RequestContext | undefined {
    return typeof requestId === "number" ? this.pending.get(requestId)?.context : undefined;
  }

  fault(requestId: RequestId): void {
    if (typeof requestId === "number") this.settle(requestId, undefined);
  }

  boundReply(requestId: RequestId, bytes: number): void {
    const entry = typeof requestId === "number" ? this.pending.get(requestId) : undefined;
    if (entry) entry.bound = bytes;
  }

  /**
   * Ends the bridge. A server that may still be running a request is closed, which aborts it. One
   * whose every request was answered is simply let go: closing it would only build the SDK's
   * "Connection closed" error, stack trace included, a visible share of a warm request (bench case
   * warm-tools-call).
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const privateId of [...this.pending.keys()]) this.settle(privateId, undefined);
    if (this.abandoned) await this.server.close();
  }

  private async send(message: JSONRPCMessage): Promise<void> {
    await this.ours.send(message);
  }

  private forward(privateId: number): void {
    const entry = this.pending.get(privateId);
    if (!entry) return;
    entry.sent = true;
    this.sending++;
    this.send(this.forwarded(entry, privateId)).catch(() => this.settle(privateId, undefined));
  }

  /**
   * The request as the server gets it: under its private id and, when it asks for progress (a
   * `progressToken`) or for log notifications (2026-07-28 `logLevel`), a private `progressToken` too
   * (the private id: two callers of one shared server may well send the same token), which the server's
   * progress and log notifications about it carry. Where they can go nowhere (no `context.notify`: a
   * buffered answer) the token is dropped, so the server does not make notifications no one reads.
   */
  private forwarded(entry: Pending, privateId: number): JSONRPCRequest {
    const params = entry.request.params;
    const meta = params?._meta;
    if (params === undefined || meta === undefined) return { ...entry.request, id: privateId };
    const { progressToken, ...otherMeta } = meta;
    const logLevel = otherMeta[META_KEYS.logLevel];
    if (entry.context.notify !== undefined) {
      if (progressToken !== undefined) entry.progressToken = progressToken;
      if (typeof logLevel === "string") entry.logLevel = logLevel;
    }
    const told = entry.progressToken !== undefined || entry.logLevel !== undefined;
    if (!told && !Object.hasOwn(meta, "progressToken")) return { ...entry.request, id: privateId };
    const kept = told ? { ...otherMeta, progressToken: privateId } : otherMeta;
    const { _meta: _dropped, ...otherParams } = params;
    const withMeta = Object.keys(kept).length > 0 ? { ...otherParams, _meta: kept } : otherParams;
    return { ...entry.request, id: privateId, params: withMeta };
  }

  /** A server's log message about a request still pending (its private token in `_meta`), passed on to its caller. */
  private relayLog(message: JSONRPCNotification): void {
    const { _meta: meta, ...params } = message.params ?? {};
    const privateToken = (meta as { progressToken?: unknown } | undefined)?.progressToken;
    const entry = typeof privateToken === "number" ? this.pending.get(privateToken) : undefined;
    if (entry?.logLevel === undefined) return;
    entry.context.notify?.({ ...message, params });
  }

  /** A server's progress about a request still pending, passed on to its caller under the caller's own token. */
  private relayProgress(message: JSONRPCNotification): void {
    const privateToken = message.params?.progressToken;
    const entry = typeof privateToken === "number" ? this.pending.get(privateToken) : undefined;
    if (entry?.progressToken === undefined) return;
    entry.context.notify?.({ ...message, params: { ...message.params, progressToken: entry.progressToken } });
  }

  private receive(message: JSONRPCMessage): void {
    if ("method" in message) {
      // A server-to-client request cannot reach a client over a JSON response: refuse it so nothing waits.
      if ("id" in message) {
        const refusal = errorReply(
          message.id,
          ErrorCode.MethodNotFound,
          "This client cannot receive server requests",
        );
        void this.send(refusal).catch(() => undefined);
      } else if (message.method === "notifications/progress") {
        this.relayProgress(message);
      } else if (message.method === "notifications/message") {
        this.relayLog(message);
      }
      return;
    }
    if (typeof message.id === "number") this.settle(message.id, message as JSONRPCReply);
  }

  private expire(privateId: number): void {
    const entry = this.pending.get(privateId);
    if (!entry) return;
    entry.context.report?.timedOut();
    this.settle(privateId, undefined, timedOut);
    if (!entry.sent) return;
    const cancel: JSONRPCNotification = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: privateId, reason: "Request timed out" },
    };
    void this.send(cancel).catch(() => undefined);
  }

  /** Resolves a pending request with the server's reply (or a made one) under the caller's own id. */
  private settle(
    privateId: number,
    reply: JSONRPCReply | undefined,
    make: (id: RequestId) => Reply = serverFault,
  ): void {
    const entry = this.pending.get(privateId);
    if (!entry) return;
    this.pending.delete(privateId);
    if (!reply && entry.sent) this.abandoned = true;
    clearTimeout(entry.timer);
    if (entry.sent) {
      this.sending--;
      let next = this.waiting.shift();
      while (next !== undefined && !this.pending.has(next)) next = this.waiting.shift();
      if (next !== undefined && !this.closing) this.forward(next);
    }
    if (!reply) {
      if (make === serverFault) entry.context.report?.faulted();
      entry.resolve(make(entry.request.id));
      return;
    }
    this.observer?.(entry.request, reply);
    const message = withId(reply, entry.request.id);
    entry.resolve(entry.bound === undefined ? { message } : { message, bound: entry.bound });
  }
}

function withId(reply: JSONRPCReply, id: RequestId): JSONRPCReply {
  const { jsonrpc: _version, id: _privateId, ...outcome } = reply;
  return { jsonrpc: "2.0", id, ...outcome } as JSONRPCReply;
}

function cancelled(id: RequestId): Reply {
  return { message: errorReply(id, REQUEST_CANCELLED, "Request cancelled by the client") };
}

function timedOut(id: RequestId): Reply {
  return { message: errorReply(id, ErrorCode.RequestTimeout, "Request timed out") };
}
