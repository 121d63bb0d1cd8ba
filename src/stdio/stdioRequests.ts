import { type RequestContext, type StartedRequest, startRequest } from "../context.js";
import type { ForwardedRequests } from "../mcp/bridge/bridge.js";
import type { Transport, TransportSendOptions } from "../mcp/sdk.js";
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from "../mcp/sdk.js";
import type { RequestId } from "../protocol/jsonrpc.js";

/** How one request of a stdio client ended, for the log. */
export interface FinishedRequest {
  id: RequestId;
  method: string;
  outcome: "result" | "error" | "cancelled";
  ms: number;
}

interface Running {
  context: StartedRequest;
  method: string;
  startedAt: number;
}

/**
 * The requests a stdio client has in flight, by the id the client gave them: each has its own
 * context (a deadline `timeoutMs` away), started when the request arrives and ended when it is
 * answered or cancelled. The server reads them as it reads a bridge's (see ForwardedRequests).
 */
export class StdioRequests implements ForwardedRequests {
  private readonly running = new Map<RequestId, Running>();
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    private readonly timeoutMs: number,
    private readonly onFinished: (request: FinishedRequest) => void = () => {},
  ) {}

  start(id: RequestId, method: string): void {
    // Ids must be unique among a client's requests in flight; a repeated one shares the first's context.
    if (this.running.has(id)) return;
    const context = startRequest({
      timeoutMs: this.timeoutMs,
      invocation: { lambda: undefined, correlationId: `rpc-${String(id)}` },
    });
    this.running.set(id, { context, method, startedAt: performance.now() });
  }

  finish(id: RequestId, outcome: FinishedRequest["outcome"]): void {
    const running = this.running.get(id);
    if (running === undefined) return;
    this.running.delete(id);
    running.context.end();
    this.onFinished({
      id,
      method: running.method,
      outcome,
      ms: Math.round(performance.now() - running.startedAt),
    });
    if (this.running.size === 0) {
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Resolves once every request in flight has been answered or cancelled. */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  contextOf(requestId: RequestId): RequestContext | undefined {
    return this.running.get(requestId)?.context;
  }

  /** Nothing to do: the server answers a faulted request `-32603 Internal error` itself, and over stdio that is the whole answer. */
  fault(_requestId: RequestId): void {}

  /** Nothing to do: a stdio reply has no size limit to share out. */
  boundReply(_requestId: RequestId, _bytes: number): void {}
}

/**
 * `transport`, seen by `requests`: each request the client sends starts its context before the
 * server sees it, and each reply the server sends (or the client's cancellation) ends it.
 */
export function trackRequests(transport: Transport, requests: StdioRequests): Transport {
  const tracked: Transport = {
    start: () => transport.start(),
    close: () => transport.close(),
    async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
      try {
        await transport.send(message, options);
      } finally {
        if (isJSONRPCResultResponse(message)) requests.finish(message.id, "result");
        else if (isJSONRPCErrorResponse(message) && message.id !== undefined)
          requests.finish(message.id, "error");
      }
    },
  };
  transport.onclose = () => tracked.onclose?.();
  transport.onerror = (error) => tracked.onerror?.(error);
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if (isJSONRPCRequest(message)) requests.start(message.id, message.method);
    tracked.onmessage?.(message, extra);
    // The server sends nothing for a request its client cancelled: its context ends here.
    if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === "string" || typeof id === "number") requests.finish(id, "cancelled");
    }
  };
  return tracked;
}
