// Answers tools/call: the tool found, its arguments checked, run in the request's context (report, trace,
// deadline margin, progress), the call recorded, a failure answered as the tool's error or as PYTHON_COMPAT's.

import {
  type CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type * as z from "zod";
import type { Tool, ToolCall } from "../../tools/types.js";
import {
  type RequestContext,
  withCancellation,
  withMargin,
  withProgress,
  withReport,
  withTrace,
} from "../context.js";
import { TOOL_DEADLINE_MARGIN_MS } from "../deadline.js";
import { describeIssues, ToolError, type ToolErrorKind } from "../errors.js";
import { ToolReport } from "../metrics/report.js";
import { ProgressNotifier } from "../progress.js";
import { isLoggedAt, META_KEYS } from "../protocol/envelope.js";
import { checking } from "../protocol/inboundChecks.js";
import { resultBudget } from "../results/budget.js";
import type { Trace } from "../tracing/trace.js";
import { memoize } from "../util/memoize.js";
import { type ForwardedRequests, REQUEST_CANCELLED } from "./bridge/bridge.js";
import { type Extra, RpcError } from "./rpcError.js";
import type { ServerOptions } from "./serverOptions.js";
import type { Rendered } from "./toolResult.js";

/**
 * The result's rendering, imported on the first call rather than at init: measuring and cutting a result
 * (fit.ts, the token estimator's tables) is needed by a call alone, like the tools' bodies
 * (tools/lazyRun.ts; bench case sdkFloor). Memoized: a later call awaits the settled import, not the loader.
 */
const rendering = memoize(() => import("./toolResult.js"), { onRejection: "retry" });

/**
 * Answers tools/call: runs the tool in the request's context (its own report and trace, a deadline with a
 * margin, the reply's budget), records how the call went, and bounds the reply to what the result takes.
 */
export async function answerToolCall(
  request: z.output<typeof CallToolRequestSchema>,
  extra: Extra,
  toolsByName: ReadonlyMap<string, Tool>,
  forwarded: ForwardedRequests,
  options: ServerOptions,
): Promise<CallToolResult> {
  const context = forwarded.contextOf(extra.requestId);
  // Already answered (cancelled by its caller, or timed out) before it started: nothing to do.
  if (!context) throw new RpcError(REQUEST_CANCELLED, "Request cancelled");
  const tool = toolsByName.get(request.params.name);
  if (!tool) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Unknown tool: ${request.params.name}. Available tools: ${[...toolsByName.keys()].join(", ")}`,
    );
  }
  // With metrics on, the call reports to a report of its own: its upstream attempts are its own.
  const toolReport = context.report && new ToolReport(context.report);
  const reporting = toolReport ? withReport(context, toolReport) : context;
  // Traced, the call is an X-Ray subsegment of its own, which its AMP and Prometheus calls go in.
  const toolTrace = context.trace?.open(`Tool ${tool.name}`);
  toolTrace?.annotate("tool", tool.name);
  const tracing = toolTrace ? withTrace(reporting, toolTrace) : reporting;
  const call: ToolCall = {
    settings: options.settings,
    upstream: options.upstream,
    context: withCancellation(
      withMargin(toldProgress(tracing, request, extra), TOOL_DEADLINE_MARGIN_MS),
      extra.signal,
    ),
    budget: resultBudget(options.maxResultTokens, options.maxResultBytes, context.replyBytes),
  };
  const startedAt = performance.now();
  let rendered: Partial<Rendered> = {};
  const failure: Failure = {};
  try {
    rendered = await callTool(tool, request.params.arguments, call, options, failure);
  } finally {
    recordToolCall(tool.name, startedAt, rendered, failure, toolReport, toolTrace);
  }
  const { result, replyBytes } = rendered as Rendered;
  if (replyBytes !== undefined) forwarded.boundReply(extra.requestId, replyBytes);
  return result;
}

/**
 * The call's context, telling its caller how far along it is when the call carries a `progressToken`:
 * each step (the query sent, Prometheus answering, a retry, cutting) and the answer as it is read, as
 * `notifications/progress` on the request's own stream (stdio writes them at once; a buffered HTTP
 * response has nowhere to put them, and drops them). A 2026-07-28 call that asks for log notifications
 * (`_meta` logLevel) gets the same steps as `notifications/message` at their level (a retry is a
 * warning, the reading debug), those at or above the level it asked for; each carries the call's
 * token in `_meta`, for the bridge to find its caller (bridge.ts), which it does not pass on.
 */
function toldProgress(
  context: RequestContext,
  request: z.output<typeof CallToolRequestSchema>,
  extra: Extra,
): RequestContext {
  const meta = request.params._meta;
  const progressToken = meta?.progressToken;
  if (progressToken === undefined) return context;
  const logLevel = meta?.[META_KEYS.logLevel];
  // The caller may be gone (a closed transport): notifications are a courtesy, never a failure.
  const send = (notification: ServerNotification) =>
    void extra.sendNotification(notification).catch(() => undefined);
  const notifier = new ProgressNotifier(({ progress, message, level }) => {
    send({ method: "notifications/progress", params: { progressToken, progress, message } });
    if (typeof logLevel === "string" && isLoggedAt(level, logLevel)) {
      send({
        method: "notifications/message",
        params: { level, logger: "prometheus", data: message, _meta: { progressToken } },
      });
    }
  });
  return withProgress(context, notifier);
}

/**
 * Tells the call's own report (metrics) and trace (X-Ray), when on, how it went: called whether the call
 * answered or threw, so a call that threw is counted too.
 */
function recordToolCall(
  toolName: string,
  startedAt: number,
  rendered: Partial<Rendered>,
  failure: Failure,
  toolReport: ToolReport | undefined,
  toolTrace: Trace | undefined,
): void {
  // A call that threw (PYTHON_COMPAT's -32603 for a tool failure) failed too.
  const failed = rendered.result === undefined || rendered.result.isError === true;
  toolReport?.toolCalled({
    tool: toolName,
    ms: performance.now() - startedAt,
    failed,
    errorKind: failed ? (failure.kind ?? "fault") : undefined,
    upstreamMs: toolReport.upstreamMs,
    resultBytes: rendered.textBytes ?? 0,
    truncated: rendered.truncated ?? false,
    upstreamAttempts: toolReport.attempts,
  });
  if (toolTrace !== undefined) {
    toolTrace.annotate("failed", failed);
    if (failed) toolTrace.flag("error");
    toolTrace.describe("result_bytes", rendered.textBytes ?? 0);
    toolTrace.describe("truncated", rendered.truncated ?? false);
    toolTrace.close();
  }
}

/** Why a tool call failed, filled in by callTool before it answers (or throws, under PYTHON_COMPAT). */
interface Failure {
  kind?: ToolErrorKind | "fault";
}

async function callTool(
  tool: Tool,
  args: Record<string, unknown> | undefined,
  call: ToolCall,
  options: ServerOptions,
  failure: Failure,
): Promise<Partial<Rendered> & { result: CallToolResult }> {
  checking("arguments");
  const parsed = tool.inputSchema.safeParse(numbersAsStrings(args ?? {}));
  if (!parsed.success) {
    failure.kind = "invalid_arguments";
    return failed(tool.name, `Invalid arguments: ${describeIssues(parsed.error.issues)}`, options);
  }
  // The query and its time range, for DEBUG only: a query can name what the caller looks for.
  call.context.debug?.("tool called", { tool: tool.name, arguments: parsed.data });
  try {
    const result = await tool.run(parsed.data, call);
    const { render } = await rendering();
    return await render(result, call.budget, options.pythonLayout ? 2 : undefined, call.context.progress);
  } catch (error) {
    if (error instanceof ToolError) {
      failure.kind = error.kind;
      return failed(tool.name, error.message, options);
    }
    failure.kind = "fault";
    options.onFault(error, `tool ${tool.name}`, call.context.invocation);
    return failed(tool.name, "internal error (details are in the function's log)", options);
  }
}

function failed(toolName: string, message: string, options: ServerOptions): { result: CallToolResult } {
  return { result: toolFailure(toolName, message, options) };
}

/**
 * Every tool parameter is a string (the Python server's interface), but clients such as the MCP
 * Inspector CLI send numeric-looking values (a Unix time, a step in seconds) as JSON numbers.
 */
function numbersAsStrings(args: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(args).map(([name, value]) => [
    name,
    typeof value === "number" && Number.isFinite(value) ? String(value) : value,
  ]);
  return Object.fromEntries(entries);
}

function toolFailure(toolName: string, message: string, options: ServerOptions): CallToolResult {
  const text = `Error executing tool ${toolName}: ${message}`;
  if (options.toolFailuresAsErrors)
    throw new RpcError(ErrorCode.InternalError, `Tool execution failed: ${text}`);
  return { content: [{ type: "text", text }], isError: true };
}
