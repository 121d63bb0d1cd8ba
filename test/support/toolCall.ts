import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { withReport } from "../../src/context.js";
import type { ToolErrorKind } from "../../src/errors.js";
import { Bridge } from "../../src/mcp/bridge/bridge.js";
import { mcpServerFactory } from "../../src/mcp/server.js";
import type { Report, ToolOutcome } from "../../src/metrics/report.js";
import { createUpstream, type Upstream } from "../../src/prometheus/upstream.js";
import type { JSONRPCReply } from "../../src/protocol/jsonrpc.js";
import type { Budget } from "../../src/results/fit.js";
import { type Tool, type ToolCall, ToolError, type ToolSettings } from "../../tools/types.js";
import { testContext } from "./context.js";

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
  /** Milliseconds until the request's deadline (default 10 s); the tool gets the server's margin less. */
  timeoutMs?: number;
  /** Cancels the request. */
  signal?: AbortSignal;
  /** The clients (and their caches) of an earlier call: a warm container. Default: new ones, a cold container. */
  upstream?: Upstream;
  /** The result's budget (default: MAX_RESULT_TOKENS's default and one HTTP reply's share of the response). */
  budget?: Budget;
}

/**
 * What a server is configured with for one call: settings over LOCAL_SETTINGS, the request's context
 * (`testContext`), the clients, the result's budget. `callTool` and its kin serve it through the real
 * MCP server; a test may also hand it to a tool's `run` or a tool's parts directly.
 */
export function makeToolCall(overrides: Partial<ToolSettings> = {}, options: ToolCallOptions = {}): ToolCall {
  const settings = { ...LOCAL_SETTINGS, ...overrides };
  return {
    settings,
    upstream: options.upstream ?? createUpstream(settings),
    context: testContext(options.timeoutMs, { signal: options.signal }),
    budget: options.budget ?? DEFAULT_BUDGET,
  };
}

/** A tools/call that was answered with a JSON-RPC error (a fault, a timeout, a cancellation). */
export class ToolCallRpcError extends Error {
  override name = "ToolCallRpcError";

  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`JSON-RPC error ${code}: ${message}`);
  }
}

/** What one tools/call through the real server came to: its result, how the server reported it, any fault. */
interface Served {
  result: CallToolResult;
  outcome: ToolOutcome | undefined;
  faults: unknown[];
}

/**
 * Sends `tools/call` for `tool` with raw `args` through the real MCP server (`mcpServerFactory`, serving
 * `call`'s settings, clients and budget where `serverOptionsOf` would take them from a config) over the real
 * bridge (`Bridge.open`), as one request of `call.context`: the server validates the arguments, runs the
 * tool with its deadline margin and cancellation, renders and cuts the result, and answers tool errors
 * as `isError` results. A JSON-RPC error reply (a fault, a timeout) throws ToolCallRpcError.
 */
async function serve(tool: Tool, args: Record<string, unknown>, call: ToolCall): Promise<Served> {
  const outcomes: ToolOutcome[] = [];
  const faults: unknown[] = [];
  const outer = call.context.report;
  // The report the server tells each call's outcome to (its error kind among them), passed on to the context's.
  const report: Report = {
    rehydrated: () => outer?.rehydrated(),
    timedOut: () => outer?.timedOut(),
    faulted: () => outer?.faulted(),
    upstreamAttempts: (count, ms) => outer?.upstreamAttempts(count, ms),
    toolCalled: (outcome) => {
      outcomes.push(outcome);
      outer?.toolCalled(outcome);
    },
  };
  // The server builds each call's ToolCall itself; the clock is the one thing of ours a test sets on it.
  const clock = call.clock;
  const served: Tool =
    clock === undefined
      ? tool
      : { ...tool, run: (parsed, serverCall) => tool.run(parsed, { ...serverCall, clock }) };
  const makeServer = mcpServerFactory({
    tools: [served],
    views: false,
    instructions: "",
    settings: call.settings,
    upstream: call.upstream,
    toolFailuresAsErrors: false,
    pythonLayout: false,
    declareNumbers: true,
    maxResultTokens: call.budget.tokens,
    maxResultBytes: call.budget.bytes,
    onFault: (error) => faults.push(error),
  });
  const bridge = await Bridge.open(makeServer);
  let reply: JSONRPCReply;
  try {
    ({ message: reply } = await bridge.request(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool.name, arguments: args } },
      withReport(call.context, report),
    ));
  } finally {
    await bridge.close();
  }
  if ("error" in reply) {
    // A fault is answered -32603 Internal error; the test wants to see the error itself.
    if (faults.length > 0) throw faults[0];
    throw new ToolCallRpcError(reply.error.code, reply.error.message);
  }
  return { result: reply.result as CallToolResult, outcome: outcomes[0], faults };
}

/**
 * Calls `tool` with raw `args` through the real server (see `serve`) and returns the CallToolResult it
 * answered, whatever it is (an `isError` one included): its text, its hint, its structured content.
 */
export async function toolResult(
  tool: Tool,
  args: Record<string, unknown>,
  call: ToolCall,
): Promise<CallToolResult> {
  return (await serve(tool, args, call)).result;
}

/**
 * Calls `tool` with raw `args` through the real server (see `serve`) and returns the structured result
 * it answered. A tool failure (`isError`) throws it back as the ToolError the server rendered: the
 * message after `Error executing tool <name>: `, the kind the server reported for the call. An
 * unexpected error of the tool (a fault, answered as an internal error) is thrown as it was.
 */
export async function callTool(tool: Tool, args: Record<string, unknown>, call: ToolCall): Promise<unknown> {
  const { result, outcome, faults } = await serve(tool, args, call);
  if (result.isError !== true) return result.structuredContent;
  if (faults.length > 0) throw faults[0];
  const [first] = result.content;
  const text = first?.type === "text" ? first.text : "";
  const prefix = `Error executing tool ${tool.name}: `;
  const kind = outcome?.errorKind as ToolErrorKind | undefined;
  if (!text.startsWith(prefix) || kind === undefined) {
    throw new Error(`${tool.name} failed in a way the server never answers: ${text} (kind ${kind})`);
  }
  throw new ToolError(text.slice(prefix.length), kind);
}

/** The human-readable issues the tool's input schema finds in raw arguments, or [] when they are valid. */
export function validationErrors(tool: Tool, args: Record<string, unknown>): string[] {
  const result = tool.inputSchema.safeParse(args);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

/** Calls a tool that is expected to fail and returns its ToolError (any other outcome fails the test). */
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
