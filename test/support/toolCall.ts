import { createUpstream, type Upstream } from "../../src/prometheus/upstream.js";
import type { Budget } from "../../src/results/fit.js";
import { renderToolResult } from "../../src/server.js";
import { type Tool, type ToolCall, ToolError, type ToolSettings } from "../../tools/types.js";
import { testContext } from "../helpers/context.js";

/** MAX_RESULT_TOKENS's default, and about what one HTTP reply's share of the response allows. */
export const DEFAULT_BUDGET: Budget = { tokens: 20_000, bytes: 1_000_000 };

/** Settings as in a local run: no PROMETHEUS_URL, SigV4, us-east-1, real AMP endpoint, profiles allowed. */
export const LOCAL_SETTINGS: ToolSettings = {
  prometheusUrl: undefined,
  prometheusAuth: "sigv4",
  defaultRegion: "us-east-1",
  ampEndpoint: undefined,
  profileSupported: true,
};

export interface ToolCallOptions {
  /** Milliseconds until the call's deadline (default 10 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The clients (and their caches) of an earlier call: a warm container. Default: new ones, a cold container. */
  upstream?: Upstream;
  /** The result's budget (default: MAX_RESULT_TOKENS's default and one HTTP reply's share of the response). */
  budget?: Budget;
}

/** A ToolCall as the server would build it: settings over LOCAL_SETTINGS, a request context, the clients. */
export function makeToolCall(overrides: Partial<ToolSettings> = {}, options: ToolCallOptions = {}): ToolCall {
  const settings = { ...LOCAL_SETTINGS, ...overrides };
  return {
    settings,
    upstream: options.upstream ?? createUpstream(settings),
    context: testContext(options.timeoutMs, { signal: options.signal }),
    budget: options.budget ?? DEFAULT_BUDGET,
  };
}

/**
 * Validates raw arguments with the tool's input schema (as the MCP server does), runs it, and returns
 * the structured result the server would send (cut to the call's budget if it had to be).
 */
export async function callTool(tool: Tool, args: Record<string, unknown>, call: ToolCall): Promise<unknown> {
  const result = await tool.run(tool.inputSchema.parse(args), call);
  return (await renderToolResult(result, call.budget)).structuredContent;
}

/** The human-readable validation messages for raw arguments, or [] when they are valid. */
export function validationErrors(tool: Tool, args: Record<string, unknown>): string[] {
  const result = tool.inputSchema.safeParse(args);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

/** Runs a tool that is expected to fail and returns its ToolError (any other outcome fails the test). */
export async function toolError(
  tool: Tool,
  args: Record<string, unknown>,
  call: ToolCall,
): Promise<ToolError> {
  try {
    await callTool(tool, args, call);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`${tool.name} succeeded but was expected to fail`);
}
