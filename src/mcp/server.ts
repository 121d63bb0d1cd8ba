import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import * as z from "zod";
import packageJson from "../../package.json" with { type: "json" };
import {
  forBackends,
  forPlainPrometheus,
  instructionsFor,
  servesViews,
  toolsNamed,
} from "../../tools/index.js";
import { Picture, type Tool, type ToolCall, type ToolSettings } from "../../tools/types.js";
import type { Config } from "../config/index.js";
import {
  type Invocation,
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
import { type Progress, ProgressNotifier } from "../progress.js";
import { Secret } from "../prometheus/secrets.js";
import { createUpstream, type Upstream } from "../prometheus/upstream.js";
import { cut } from "../protocol/echo.js";
import { isLoggedAt, META_KEYS } from "../protocol/envelope.js";
import { checking } from "../protocol/inboundChecks.js";
import { constantResult } from "../protocol/jsonrpc.js";
import { FIT_ATTEMPTS, REFIT_MARGIN, REPLY_ENVELOPE_BYTES, resultBudget } from "../results/budget.js";
import { type Budget, costOfText, type Fittable, type Fitted, fitsIn, isFittable } from "../results/fit.js";
import { inlineSizeMeta, resultBytesCap } from "../results/inlineSize.js";
import type { Trace } from "../tracing/trace.js";
import { RANGE_VIEW_RESOURCE, RANGE_VIEW_URI, VIEWS_CAPABILITY, viewMetaOf } from "../views/rangeView.js";
import { readRangeView } from "../views/resources.js";
import { type ForwardedRequests, REQUEST_CANCELLED } from "./bridge/bridge.js";
import { describeTool } from "./toolSchemas.js";

export const SERVER_NAME = "prometheus-mcp-lambda";
export const SERVER_VERSION: string = packageJson.version;

/** What this server offers, in every protocol revision: tools, whose list changes only with a deploy. */
export const TOOLS_CAPABILITY = { tools: { listChanged: false } };

export interface ServerOptions {
  /** The tools served, in `tools/list` order. */
  tools: readonly Tool[];
  /**
   * Serve the MCP Apps view of range results (src/views/): the resource, the capability and the
   * extension declared, the tools that have a view pointing at it. Comes with the charts group.
   */
  views: boolean;
  /** The server's instructions to the model: how an investigation goes with these tools. */
  instructions: string;
  settings: ToolSettings;
  upstream: Upstream;
  /** PYTHON_COMPAT: a failed tool call becomes a JSON-RPC `-32603 Tool execution failed: …` error. */
  toolFailuresAsErrors: boolean;
  /** PYTHON_COMPAT: a result's text is JSON indented by 2 spaces, as the Python server wrote it (else compact). */
  pythonLayout: boolean;
  /**
   * Declare the numbers clients may send for times, steps and limits (NUMERIC_PARAMETERS) in the tools'
   * input schemas; off under PYTHON_COMPAT, whose schemas stay the Python server's (strings).
   */
  declareNumbers: boolean;
  /** MAX_RESULT_TOKENS: the model's budget for one tool result. */
  maxResultTokens: number;
  /**
   * MAX_RESULT_BYTES: a cap on one tool result's text in bytes, besides its share of the response;
   * undefined: the default cap (src/results/inlineSize.ts). Declared to Claude Code in tools/list.
   */
  maxResultBytes: number | undefined;
  /**
   * Receives errors that are not the caller's fault (they are answered `-32603 Internal error`, HTTP 500),
   * with the invocation of the request that met them.
   */
  onFault: (error: unknown, where: string, invocation: Invocation | undefined) => void;
}

/**
 * The options of the MCP servers serving `tools` (default: those TOOLS names) under `config`;
 * `profileSupported`: a local process (credentials files exist), not a deployed Lambda.
 */
export function serverOptionsOf(
  config: Config,
  chosen: readonly Tool[] | undefined,
  profileSupported: boolean,
  onFault: ServerOptions["onFault"],
): ServerOptions {
  const named = chosen ?? toolsNamed(config.tools);
  const tools = offeredForms(config, named);
  const served = tools.map((tool) => tool.name);
  const settings: ToolSettings = {
    prometheusUrl: config.prometheusUrl,
    prometheusAuth: config.prometheusAuth,
    prometheusSecret: config.prometheusSecret && new Secret(config.prometheusSecret),
    prometheusHeaders: config.prometheusHeaders,
    prometheusKind: config.prometheusKind,
    backends: config.backends?.map(({ secret, ...backend }) => ({
      ...backend,
      secret: secret && new Secret(secret),
    })),
    backendsOnly: config.backendsOnly,
    tenantHeader: config.tenants?.header,
    allowedWorkspaces: config.allowedWorkspaces,
    allowedRegions: config.allowedRegions,
    defaultRegion: config.awsRegion,
    ampEndpoint: config.ampEndpoint,
    alertmanagerUrl: config.alertmanagerUrl,
    profileSupported,
    served: new Set(served),
    defaultOrder: config.pythonCompat ? "highest" : "unusual",
    pythonCompat: config.pythonCompat,
  };
  return {
    tools,
    views: servesViews(served),
    instructions: instructionsFor(served, config.plainPrometheus, config.backends !== undefined),
    settings,
    upstream: createUpstream(settings),
    toolFailuresAsErrors: config.pythonCompat,
    pythonLayout: config.pythonCompat,
    declareNumbers: !config.pythonCompat,
    maxResultTokens: config.maxResultTokens,
    maxResultBytes: config.maxResultBytes,
    onFault,
  };
}

/** The tools as this configuration offers them: for BACKENDS, for one plain Prometheus, or as they are. */
function offeredForms(config: Config, named: readonly Tool[]): Tool[] {
  const [first, ...rest] = (config.backends ?? []).map((backend) => backend.name);
  if (first !== undefined) {
    const defaultName = config.backends?.find((backend) => backend.isDefault)?.name;
    return named.map((tool) => forBackends(tool, [first, ...rest], defaultName, config.backendsOnly));
  }
  return config.plainPrometheus ? named.map(forPlainPrometheus) : [...named];
}

/** Builds one MCP server for a bridge; everything that can be shared between servers is built once, here. */
export type McpServerFactory = (forwarded: ForwardedRequests) => McpServer;

/** An error the SDK's Protocol answers with exactly this code, message and data (an McpError would prefix the message). */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function mcpServerFactory(options: ServerOptions): McpServerFactory {
  const validator = lazyAjvValidator();
  const toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
  let toolList: ListToolsResult | undefined;
  // Tool schemas are converted to JSON Schema once, on the first tools/list.
  const listTools = (): ListToolsResult => {
    toolList ??= constantResult({
      tools: options.tools.map((tool) => {
        const described = describeTool(tool, options.declareNumbers);
        const meta = {
          ...(options.views && tool.view !== undefined ? viewMetaOf(tool.view) : {}),
          ...inlineSizeMeta(resultBytesCap(options.maxResultBytes)),
        };
        return Object.keys(meta).length > 0 ? { ...described, _meta: meta } : described;
      }),
    });
    return toolList;
  };

  return (forwarded) => {
    const mcp = new McpServer(
      { name: SERVER_NAME, version: SERVER_VERSION },
      { capabilities: { logging: {} }, instructions: options.instructions, jsonSchemaValidator: validator },
    );
    const guarded = guardFor(options, forwarded);
    // Declared here rather than in the options, where McpServer would install handlers of its own.
    mcp.server.registerCapabilities(TOOLS_CAPABILITY);
    const checked = forwarded.paramsChecked ? routedBy : <S>(schema: S) => schema;
    mcp.server.setRequestHandler(
      checked(ListToolsRequestSchema),
      guarded("tools/list", () => listTools()),
    );
    mcp.server.setRequestHandler(
      checked(CallToolRequestSchema),
      guarded("tools/call", (request: z.output<typeof CallToolRequestSchema>, extra) =>
        answerToolCall(request, extra, toolsByName, forwarded, options),
      ),
    );
    if (options.views) serveViews(mcp, guarded);
    return mcp;
  };
}

/**
 * The schema a handler is registered with when its requests' params were checked before they were
 * forwarded (src/mcp/bridge/params.ts, whose -32602 names what is wrong): the method alone, which the SDK
 * routes on. The SDK parses every request with the schema its handler was registered with; given the
 * method's full schema, it would check the same params a second time (bench case warm-tools-call).
 * Its output type stays the full schema's, which the params were checked against.
 */
function routedBy<S extends { shape: { method: z.ZodLiteral<string> } }>(schema: S): S {
  return z.looseObject({ method: schema.shape.method }) as unknown as S;
}

/**
 * The MCP Apps view as a resource: listed, read by its `ui://` URI; any other URI is not found (-32602
 * with the URI in `data`, as protocol revision 2026-07-28 has it; the 2025 revisions name no code).
 * No templates, but asking for them is no error.
 */
function serveViews(mcp: McpServer, guarded: ReturnType<typeof guardFor>): void {
  mcp.server.registerCapabilities(VIEWS_CAPABILITY);
  mcp.server.setRequestHandler(
    ListResourcesRequestSchema,
    guarded("resources/list", () => ({ resources: [RANGE_VIEW_RESOURCE] })),
  );
  mcp.server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    guarded("resources/templates/list", () => ({ resourceTemplates: [] })),
  );
  mcp.server.setRequestHandler(
    ReadResourceRequestSchema,
    guarded("resources/read", (request: z.output<typeof ReadResourceRequestSchema>) => {
      const { uri } = request.params;
      if (uri !== RANGE_VIEW_URI)
        throw new RpcError(ErrorCode.InvalidParams, `Resource not found: ${cut(uri)}`, { uri });
      return readRangeView();
    }),
  );
}

/**
 * One validator for every server, which builds Ajv only when the SDK first validates against a JSON Schema
 * (only elicitation answers, never asked for here): building Ajv is a visible part of a cold start (bench
 * case cold-start).
 */
function lazyAjvValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return {
    getValidator: (schema) => {
      ajv ??= new AjvJsonSchemaValidator();
      return ajv.getValidator(schema);
    },
  };
}

/**
 * Wraps our handlers only (not the SDK's own): a fault is logged and its request answered as a fault by the
 * bridge; an RpcError is answered as it is.
 */
function guardFor(options: ServerOptions, forwarded: ForwardedRequests) {
  return <R, T>(method: string, handle: (request: R, extra: Extra) => T | Promise<T>) =>
    async (request: R, extra: Extra): Promise<T> => {
      try {
        return await handle(request, extra);
      } catch (error) {
        if (error instanceof RpcError) throw error;
        options.onFault(error, method, forwarded.contextOf(extra.requestId)?.invocation);
        forwarded.fault(extra.requestId);
        throw new Error("Internal error");
      }
    };
}

/**
 * Answers tools/call: runs the tool in the request's context (its own report and trace, a deadline with a
 * margin, the reply's budget), records how the call went, and bounds the reply to what the result takes.
 */
async function answerToolCall(
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
 * The tool's result as MCP content: its JSON as text and the same object as structuredContent, and
 * for one that matched nothing a hint (not in the Python layout). The text is within the budget: a
 * result too large cuts itself (its first key `truncated` says so, with its note).
 */
export async function renderToolResult(
  result: Record<string, unknown> | Fittable | Picture,
  budget: Budget,
  indent?: number,
): Promise<CallToolResult> {
  return (await render(result, budget, indent, undefined)).result;
}

/** A tool's result as MCP content, and the most bytes its JSON-RPC reply takes (id aside). */
interface Rendered {
  result: CallToolResult;
  replyBytes: number;
  /** Bytes of text given to the model. */
  textBytes: number;
  /** The result was cut to fit. */
  truncated: boolean;
}

async function render(
  result: Record<string, unknown> | Fittable | Picture,
  budget: Budget,
  indent: number | undefined,
  progress: Progress | undefined,
): Promise<Rendered> {
  if (result instanceof Picture) return renderedPicture(result, budget, indent);
  if (!isFittable(result)) {
    const text = JSON.stringify(result, null, indent);
    return rendered({ value: result }, text, Buffer.byteLength(text, "utf8"));
  }
  let asked = budget;
  for (let attempt = 1; ; attempt++) {
    const whole = await result.fit(asked, { indent }, progress);
    // The Python layout (PYTHON_COMPAT) is the Python server's, which gave no hints.
    const fitted = indent === undefined ? whole : { ...whole, hint: undefined };
    const text = JSON.stringify(fitted.value, null, indent);
    const cost = textCost(fitted.hint === undefined ? text : text + fitted.hint, budget);
    if (fitsIn(cost, budget)) return rendered(fitted, text, Buffer.byteLength(text, "utf8"));
    if (attempt >= FIT_ATTEMPTS) {
      throw new ToolError(
        `The result does not fit this reply's budget (${budget.tokens} tokens, ${budget.bytes} bytes), not even cut. Ask for less: a narrower query, or fewer calls in one batch.`,
        "too_large",
      );
    }
    // Over by the estimate's slack or the layout: ask again with proportionally less of what was over.
    asked = {
      tokens: Math.floor(asked.tokens * Math.min(1, budget.tokens / cost.tokens) * REFIT_MARGIN),
      bytes: Math.floor(asked.bytes * Math.min(1, budget.bytes / cost.bytes) * REFIT_MARGIN),
    };
  }
}

/** The text's bytes and estimated tokens; no estimate is needed while its bytes fit the token budget. */
function textCost(text: string, budget: Budget): { tokens: number; bytes: number } {
  const bytes = Buffer.byteLength(text, "utf8");
  // The estimate never exceeds the bytes (no run costs more tokens than it has bytes).
  return bytes <= budget.tokens ? { tokens: bytes, bytes } : { ...costOfText(text), bytes };
}

function rendered(fitted: Fitted, text: string, textBytes: number): Rendered {
  const content: CallToolResult["content"] = [{ type: "text", text }];
  if (fitted.hint) content.push({ type: "text", text: fitted.hint });
  const hintBytes = fitted.hint ? Buffer.byteLength(fitted.hint, "utf8") : 0;
  // The reply carries the text escaped (at most twice its bytes) and the structured copy (at most its bytes again).
  return {
    result: { content, structuredContent: fitted.value },
    replyBytes: 3 * (textBytes + hintBytes) + REPLY_ENVELOPE_BYTES,
    textBytes: textBytes + hintBytes,
    truncated: fitted.value.truncated !== undefined,
  };
}

/**
 * A picture as MCP content: the image, then its facts as text (also the structured content). The
 * image goes to the model as an image (a multimodal model reads a chart for a fixed number of tokens,
 * whatever its points); the reply carries it base64-encoded, which must fit the reply's bytes.
 */
function renderedPicture(picture: Picture, budget: Budget, indent: number | undefined): Rendered {
  const data = Buffer.from(picture.png).toString("base64");
  const text = JSON.stringify(picture.facts, null, indent);
  const textBytes = Buffer.byteLength(text, "utf8");
  const replyBytes = data.length + 3 * textBytes + REPLY_ENVELOPE_BYTES;
  if (data.length + 2 * textBytes > budget.bytes * 3) {
    throw new ToolError(
      `The chart (${picture.png.length} bytes) does not fit this reply (${budget.bytes} bytes for a result): send fewer calls in one batch.`,
      "too_large",
    );
  }
  return {
    result: {
      content: [
        { type: "image", data, mimeType: "image/png" },
        { type: "text", text },
      ],
      structuredContent: picture.facts,
    },
    replyBytes,
    textBytes,
    truncated: false,
  };
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
