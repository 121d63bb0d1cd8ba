import type { Bridge } from "../bridge/bridge.js";
import { dispatchOnce, type Outcome } from "../bridge/dispatch.js";
import type { RequestContext } from "../context.js";
import { directPayloadBytes, withinLimit } from "./ceiling.js";
import { PYTHON_NOTIFICATION_REPLY } from "./mcp.js";

export interface DirectOptions {
  pythonCompat: boolean;
  /** A bridge to a fresh MCP server, for one invocation only. */
  openBridge: () => Promise<Bridge>;
}

/**
 * A direct `Invoke` whose payload is the JSON-RPC message (or batch) itself: the answer is the JSON-RPC
 * reply itself, and `null` when there is nothing to answer (`{"jsonrpc":"2.0"}` under PYTHON_COMPAT).
 */
export async function handleDirect(
  payload: unknown,
  options: DirectOptions,
  context: RequestContext,
): Promise<{ result: unknown; outcome: Outcome["kind"] }> {
  const outcome = await dispatchOnce(payload, { context, openBridge: options.openBridge });
  const result = withinLimit(
    outcome,
    (fitting) => resultOf(fitting, options.pythonCompat),
    directPayloadBytes,
  );
  return { result, outcome: outcome.kind };
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
