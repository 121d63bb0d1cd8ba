import { type RequestContext, withShareOfReply } from "../../context.js";
import {
  type Classified,
  classify,
  ErrorCode,
  errorReply,
  type JSONRPCRequest,
  type Reply,
} from "../../protocol/jsonrpc.js";
import { isLegacyVersion, LATEST_LEGACY_VERSION } from "../../protocol/versions.js";
import { isPlainObject } from "../../util/json.js";
import { memoize } from "../../util/memoize.js";
import type { Bridge } from "./bridge.js";

const MAX_BATCH_ENTRIES = 100;

/**
 * What became of one payload (a message or a batch), on any path: its replies and the HTTP status they
 * have (or would have had, for a direct invocation's metrics).
 */
export type Outcome =
  /**
   * A single message: its reply. `invalid` marks a payload that was not a JSON-RPC message at all, which
   * keeps its 400 should its reply be replaced for its size (routes/ceiling.ts).
   */
  | { kind: "single"; reply: Reply; status: number; invalid: boolean }
  | { kind: "batch"; replies: Reply[] }
  /** Only notifications and responses: nothing to answer. */
  | { kind: "accepted" };

/** A single reply as an outcome: 400 when the payload was no JSON-RPC message, 500 for a server fault. */
export function single(reply: Reply, invalid = false): Outcome {
  return { kind: "single", reply, status: invalid ? 400 : reply.fault ? 500 : 200, invalid };
}

/** The HTTP status of an outcome. */
export function statusOf(outcome: Outcome): number {
  if (outcome.kind === "accepted") return 202;
  return outcome.kind === "batch" ? 200 : outcome.status;
}

export interface DispatchOptions {
  /** The request's context: a request still running at its deadline is answered `-32001`. */
  context: RequestContext;
  /** Gives the bridge to forward to; called only when something must be forwarded. */
  bridge: () => Promise<Bridge>;
}

const DEFAULT_CLIENT_INFO = { name: "unknown", version: "0" };
const DEFAULT_PROTOCOL_VERSION = "2024-11-05";

/**
 * The Python Lambda accepted `initialize` with partial or empty params; fill in what is missing. A
 * version this server does not speak (2026-07-28 has no initialize; 2024-10-07 was never published)
 * is asked for as the latest legacy one, which is what the server then answers with.
 */
export function completeInitialize(message: JSONRPCRequest): JSONRPCRequest {
  if (message.method !== "initialize") return message;
  const params = message.params ?? {};
  const requested = params.protocolVersion ?? DEFAULT_PROTOCOL_VERSION;
  return {
    ...message,
    params: {
      ...params,
      protocolVersion:
        typeof requested === "string" && !isLegacyVersion(requested) ? LATEST_LEGACY_VERSION : requested,
      capabilities: params.capabilities ?? {},
      clientInfo: params.clientInfo ?? DEFAULT_CLIENT_INFO,
    },
  };
}

export async function dispatch(payload: unknown, options: DispatchOptions): Promise<Outcome> {
  if (!Array.isArray(payload)) {
    const entry = classify(payload);
    if (entry.kind === "invalid") return single({ message: entry.reply }, true);
    const reply = await run(entry, options, memoize(options.bridge, { onRejection: "keep" }));
    return reply ? single(reply) : { kind: "accepted" };
  }
  if (payload.length === 0 || payload.length > MAX_BATCH_ENTRIES) {
    const problem = payload.length === 0 ? "an empty batch" : `more than ${MAX_BATCH_ENTRIES} entries`;
    return single(
      { message: errorReply(null, ErrorCode.InvalidRequest, `Invalid Request: ${problem}`) },
      true,
    );
  }
  // Got on first use and shared by the batch's entries: a failure to get it answers them all.
  const bridge = memoize(options.bridge, { onRejection: "keep" });
  const entries = payload.map(classifyInBatch);
  // The batch's replies share one response: each request gets an equal part of it.
  const answered = entries.filter((entry) => entry.kind === "request" || entry.kind === "invalid").length;
  const shared = { ...options, context: withShareOfReply(options.context, answered) };
  const replies = await Promise.all(entries.map((entry) => run(entry, shared, bridge)));
  const sent = replies.filter((reply): reply is Reply => reply !== undefined);
  return sent.length > 0 ? { kind: "batch", replies: sent } : { kind: "accepted" };
}

function classifyInBatch(value: unknown): Classified {
  const entry = classify(value);
  if (entry.kind === "request" && entry.message.method === "initialize") {
    const reply = errorReply(
      entry.message.id,
      ErrorCode.InvalidRequest,
      "Invalid Request: initialize must not be part of a batch",
    );
    return { kind: "invalid", reply };
  }
  return entry;
}

async function run(
  entry: Classified,
  options: DispatchOptions,
  bridge: () => Promise<Bridge>,
): Promise<Reply | undefined> {
  switch (entry.kind) {
    case "invalid":
      return { message: entry.reply };
    case "response":
      return undefined;
    case "notification":
      await (await bridge()).notify(entry.message);
      return undefined;
    case "request":
      return (await bridge()).request(completeInitialize(entry.message), options.context);
  }
}

/** Runs the payload through a bridge opened only if something must be forwarded, closed afterwards. */
export async function dispatchOnce(
  payload: unknown,
  options: { context: RequestContext; openBridge: () => Promise<Bridge> },
): Promise<Outcome> {
  let opened: Promise<Bridge> | undefined;
  try {
    return await dispatch(payload, {
      context: options.context,
      bridge: () => {
        opened = options.openBridge();
        return opened;
      },
    });
  } finally {
    if (opened) await (await opened).close();
  }
}

/** Requests that read no MCP state a request could have set, and set none: any server answers them alike. */
const STATE_FREE_METHODS = new Set(["tools/list", "tools/call", "ping"]);

/**
 * True when every message of the payload is a request of a state-free method: no `initialize`, no
 * `logging/setLevel`, no notification (a cancellation names a request of its own batch).
 */
export function changesNoMcpState(payload: unknown): boolean {
  const entries = Array.isArray(payload) ? payload : [payload];
  return (
    entries.length > 0 &&
    entries.every(
      (entry) =>
        isPlainObject(entry) &&
        Object.hasOwn(entry, "id") &&
        typeof entry.method === "string" &&
        STATE_FREE_METHODS.has(entry.method),
    )
  );
}

/**
 * Runs a payload without a session: on the container's shared server when it changes no MCP state (no
 * server to build per request: bench case warm-tools-list), else on a fresh server of its own, closed afterwards,
 * so no caller's MCP state (a log level, client capabilities) ever reaches another.
 */
export function dispatchStateless(
  payload: unknown,
  options: {
    context: RequestContext;
    openBridge: () => Promise<Bridge>;
    sharedBridge: () => Promise<Bridge>;
  },
): Promise<Outcome> {
  if (changesNoMcpState(payload))
    return dispatch(payload, { context: options.context, bridge: options.sharedBridge });
  return dispatchOnce(payload, options);
}
