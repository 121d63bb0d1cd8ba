import type { z } from "zod";
import type { RequestContext } from "../src/context.js";
import type { Upstream, UpstreamSettings } from "../src/prometheus/upstream.js";
import type { Budget, Fittable } from "../src/results/fit.js";
import type { Order } from "../src/results/ranking.js";

/** What a tool may know about its deployment: no HTTP, no Lambda. */
export interface ToolSettings extends UpstreamSettings {
  /** False in a deployed Lambda, where no credentials file exists: a `profile` argument is refused. */
  profileSupported: boolean;
  /** The order of a cut query result when the call names none (`highest` under PYTHON_COMPAT). */
  defaultOrder?: Order | undefined;
  /** PYTHON_COMPAT: query answers are written as the Python server wrote them (QueryAsked's `legacy` form). */
  pythonCompat?: boolean | undefined;
  /** The names of the tools this deployment serves (TOOLS): advice names only those. Unset: all. */
  served?: ReadonlySet<string> | undefined;
}

/** True when the deployment serves the tool, so that a hint or a note may send the model to it. */
export function serves(call: ToolCall, tool: string): boolean {
  return call.settings.served?.has(tool) ?? true;
}

/** One call of one tool. */
export interface ToolCall {
  settings: ToolSettings;
  /**
   * The request the call belongs to: its deadline (a margin before the request's, so a slow upstream
   * yields the tool's own error first) and its abort signal. Every upstream call takes it.
   */
  context: RequestContext;
  /** The AMP and Prometheus clients of this handler. */
  upstream: Upstream;
  /**
   * What this call's result may take: MAX_RESULT_TOKENS, and in bytes its share of the response (less
   * when the call shares it with others) or MAX_RESULT_BYTES. A tool reading more keeps only what can
   * be returned.
   */
  budget: Budget;
  /**
   * Epoch milliseconds now: what `now` means in this call's time arguments (read once per call).
   * Date.now when unset; tests set a fixed one.
   */
  clock?: () => number;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool<In extends z.ZodObject = z.ZodObject, Out extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  /** The description when the tools query one plain Prometheus (no workspaces), where it must differ. */
  plainDescription?: string;
  /** The description with BACKENDS (several named servers), where it must differ. */
  backendsDescription?: string;
  inputSchema: In;
  outputSchema: Out;
  annotations: ToolAnnotations;
  /**
   * The `ui://` URI of the MCP Apps view that draws this tool's results (src/views/), when the
   * deployment serves views: tools/list points the tool at it.
   */
  view?: string;
  /**
   * The result, or one that cuts itself to the call's size (then it has `outputSchema`'s shape once
   * fitted), or a picture (then its `facts` have `outputSchema`'s shape).
   */
  run(args: z.output<In>, call: ToolCall): Promise<z.output<Out> | Fittable | Picture>;
}

/**
 * A result that is a picture: an MCP `image` content item, then its facts as JSON text (what it shows),
 * which are also the structured content.
 */
export class Picture {
  constructor(
    readonly png: Uint8Array,
    readonly facts: Record<string, unknown>,
  ) {}
}

export { ToolError } from "../src/errors.js";

/** A tool as its file declares it: the output schema, or a function making it on its first read. */
export type ToolDeclaration<In extends z.ZodObject, Out extends z.ZodObject> = Omit<
  Tool<In, Out>,
  "outputSchema"
> & {
  outputSchema: Out | (() => Out);
};

/**
 * The tool, its output schema built on first read rather than at import: the shipped bundles present
 * the JSON Schema made at build (src/mcp/toolSchemaCache.ts) and validate no result against the zod one,
 * so a cold start need not build it (bench case sdkFloor).
 */
export function defineTool<In extends z.ZodObject, Out extends z.ZodObject>(
  declared: ToolDeclaration<In, Out>,
): Tool {
  const { outputSchema: makeOutput, ...rest } = declared;
  let made: Out | undefined;
  const tool = Object.defineProperty(rest, "outputSchema", {
    enumerable: true,
    get: () => {
      made ??= typeof makeOutput === "function" ? makeOutput() : makeOutput;
      return made;
    },
  });
  return tool as unknown as Tool;
}
