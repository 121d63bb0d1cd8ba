import { memoize } from "../src/util/memoize.js";
import type { ToolCall } from "./types.js";

/** A tool's body: the module its definition loads on the tool's first call. */
interface ToolBody<Args, Result> {
  run(args: Args, call: ToolCall): Promise<Result>;
}

/**
 * A tool's `run` that imports its body on the first call rather than at a cold start: `initialize` and
 * `tools/list` need only the definitions, so the shipped bundle keeps the bodies (and the result
 * shaping only they use) in chunks loaded on first use (bench case sdkFloor). The import is made once
 * and shared by concurrent calls; a failed one is forgotten, so the next call tries again, and its
 * error is the call's, answered as any error a tool throws.
 */
export function lazyRun<Args, Result>(
  load: () => Promise<ToolBody<Args, Result>>,
): (args: Args, call: ToolCall) => Promise<Result> {
  // After the first call, a call awaits the settled import rather than asking the module loader again.
  const body = memoize(load, { onRejection: "retry" });
  return async (args, call) => (await body()).run(args, call);
}
