import type { Bridge } from "../bridge/bridge.js";
import { dispatchStateless, type Outcome } from "../bridge/dispatch.js";
import { isServerFault, type JSONRPCReply } from "../bridge/jsonrpc.js";
import type { RequestContext } from "../context.js";
import { classify, type Era } from "../protocol/classify.js";
import { directPayloadBytes, withinLimit } from "./ceiling.js";
import { PYTHON_NOTIFICATION_REPLY } from "./mcp.js";
import { answerModern, type ModernOptions } from "./modern.js";

export interface DirectOptions {
  pythonCompat: boolean;
  /** A bridge to a fresh MCP server, for one invocation only. */
  openBridge: () => Promise<Bridge>;
  /** The bridge to this container's shared server, for invocations that change no MCP state. */
  sharedBridge: () => Promise<Bridge>;
  /** For a payload of protocol version 2026-07-28. */
  modern: ModernOptions;
}

export interface DirectResult {
  result: unknown;
  outcome: Outcome["kind"];
  era: Era;
  traceId?: string;
  /** The HTTP status the same answer would have had over HTTP (for the metrics). */
  status: number;
}

/**
 * A direct `Invoke` whose payload is the JSON-RPC message (or batch) itself: the answer is the JSON-RPC
 * reply itself, and `null` when there is nothing to answer (`{"jsonrpc":"2.0"}` under PYTHON_COMPAT for
 * a legacy payload). A payload whose `_meta` claims 2026-07-28 is served by that revision's rules, less
 * the HTTP headers an invocation does not have.
 */
export async function handleDirect(
  payload: unknown,
  options: DirectOptions,
  context: RequestContext,
): Promise<DirectResult> {
  const inbound = classify({ json: payload });
  if (inbound.kind === "malformed") return singleReply(inbound, inbound.era, undefined);
  if (inbound.kind === "notification")
    return { result: null, outcome: "accepted", era: "modern", status: 202 };
  if (inbound.era === "modern") {
    const answer = await answerModern(inbound.request, options.modern, context);
    return singleReply(answer, "modern", inbound.envelope.traceId);
  }
  const outcome = await dispatchStateless(payload, { context, ...options });
  const result = withinLimit(
    outcome,
    (fitting) => resultOf(fitting, options.pythonCompat),
    directPayloadBytes,
  );
  return { result, outcome: outcome.kind, era: "legacy", status: statusOf(outcome) };
}

/** One reply with the HTTP status it would have had: a 2026-07-28 answer, or a payload `classify` refused. */
function singleReply(
  answer: { status: number; reply: JSONRPCReply },
  era: Era,
  traceId: string | undefined,
): DirectResult {
  const outcome: Outcome = { kind: "single", reply: answer.reply, invalid: false };
  const result = withinLimit(outcome, (fitting) => resultOf(fitting, false), directPayloadBytes);
  return { result, outcome: "single", era, traceId, status: answer.status };
}

function statusOf(outcome: Outcome): number {
  if (outcome.kind === "accepted") return 202;
  if (outcome.kind === "batch") return 200;
  return outcome.invalid ? 400 : isServerFault(outcome.reply) ? 500 : 200;
}

function resultOf(outcome: Outcome, pythonCompat: boolean): unknown {
  switch (outcome.kind) {
    case "accepted":
      return pythonCompat ? PYTHON_NOTIFICATION_REPLY : null;
    case "batch":
      return outcome.replies;
    case "single":
      return outcome.reply;
  }
}
