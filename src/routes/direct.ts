import type { RequestContext } from "../context.js";
import type { Bridge } from "../mcp/bridge/bridge.js";
import { dispatchStateless, type Outcome, statusOf } from "../mcp/bridge/dispatch.js";
import { classify } from "../protocol/classify.js";
import { methodNamesIn } from "../protocol/jsonrpc.js";
import type { Answer } from "./answer.js";
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
): Promise<Answer<unknown>> {
  const methods = methodNamesIn(payload);
  const inbound = classify({ json: payload });
  if (inbound.kind === "malformed") {
    const reply = { message: inbound.reply };
    const refused: Outcome = { kind: "single", reply, status: inbound.status, invalid: false };
    return { ...answered(refused, false), methods, era: inbound.era };
  }
  if (inbound.kind === "notification") {
    return { ...answered({ kind: "accepted" }, false), methods, era: "modern" };
  }
  if (inbound.era === "modern") {
    const outcome = await answerModern(inbound.request, options.modern, context);
    return { ...answered(outcome, false), methods, era: "modern", traceId: inbound.envelope.traceId };
  }
  const outcome = await dispatchStateless(payload, { context, ...options });
  return { ...answered(outcome, options.pythonCompat), methods, era: "legacy" };
}

/** The outcome as a direct invocation answers it, held to the response limit, with its status. */
function answered(
  outcome: Outcome,
  pythonCompat: boolean,
): Pick<Answer<unknown>, "body" | "status" | "outcome"> {
  const body = withinLimit(outcome, (fitting) => resultOf(fitting, pythonCompat), directPayloadBytes);
  return { body, status: statusOf(outcome), outcome: outcome.kind };
}

function resultOf(outcome: Outcome, pythonCompat: boolean): unknown {
  switch (outcome.kind) {
    case "accepted":
      return pythonCompat ? PYTHON_NOTIFICATION_REPLY : null;
    case "batch":
      return outcome.replies.map((reply) => reply.message);
    case "single":
      return outcome.reply.message;
  }
}
