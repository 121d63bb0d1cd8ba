import { Logger } from "@aws-lambda-powertools/logger";
import middy, { type MiddyfiedHandler } from "@middy/core";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Context } from "aws-lambda";
import type { Tool } from "../tools/types.js";
import { Bridge } from "./bridge/bridge.js";
import { ErrorCode, errorReply, serverFault } from "./bridge/jsonrpc.js";
import type { Config } from "./config.js";
import { type Invocation, type StartedRequest, startRequest } from "./context.js";
import { type HttpRequest, isHttpEvent, normalizeEvent } from "./http/event.js";
import { type HttpResponse, jsonResponse } from "./http/responses.js";
import { routeOf } from "./http/route.js";
import { isPlainObject } from "./json.js";
import { MetricsRecorder, type RequestSummary } from "./metrics/emf.js";
import { RequestReport } from "./metrics/report.js";
import { RequestLine } from "./metrics/requestLine.js";
import { DIRECT_REPLY_BYTES, HTTP_REPLY_BYTES } from "./routes/ceiling.js";
import { handleDirect } from "./routes/direct.js";
import { handleHealth } from "./routes/health.js";
import { handleMcp, type McpRouteOptions, type McpRouteResult } from "./routes/mcp.js";
import type { ModernOptions } from "./routes/modern.js";
import { handleResourceMetadata } from "./routes/resourceMetadata.js";
import {
  type McpServerFactory,
  mcpServerFactory,
  SERVER_NAME,
  SERVER_VERSION,
  serverOptionsOf,
  TOOLS_CAPABILITY,
} from "./server.js";
import { DynamoSessionStore } from "./sessions/dynamoStore.js";
import { FileSessionStore } from "./sessions/fileStore.js";
import { SessionManager } from "./sessions/manager.js";
import { MemorySessionStore } from "./sessions/memoryStore.js";
import type { SessionStore } from "./sessions/store.js";
import { annotateAnswer, inInvocation, loadTracing, type Trace, type Tracing } from "./tracing/trace.js";

/** A request still running when the Lambda has this little time left is answered `-32001`. */
const DEADLINE_MARGIN_MS = 500;
/** Time allowed where no Lambda context tells the remaining time (direct calls in tests, scripts). */
const DEFAULT_REMAINING_MS = 30_000;

/** What a handler is built from besides its configuration; the defaults are what production uses. */
export interface Dependencies {
  /** The MCP tools served (default: those TOOLS names, every tool unless configured). */
  tools?: readonly Tool[];
  /** Where sessions live (default: as SESSION_STORE and SESSION_TABLE say). */
  sessionStore?: SessionStore;
  /** Sees every MCP server the handler builds (tests inspect them). */
  onServerCreated?: (server: McpServer) => void;
  /** The tracing used whatever TRACING says (default: X-Ray through Powertools Tracer when TRACING=on). */
  tracing?: Tracing;
  /** Configuration mistakes to log once, at cold start (configWarnings of the function's environment). */
  warnings?: readonly string[];
}

export type Handler = MiddyfiedHandler<unknown, unknown, Error, Context>;

/**
 * Builds the Lambda handler for one configuration. Everything it caches (AMP clients, signers,
 * workspace endpoints, credentials, the tool list, warm sessions) belongs to this handler, so two
 * handlers in one process share nothing.
 *
 * @example
 * ```ts
 * export const handler = createHandler(configFromEnvironment());
 * const local = createHandler(loadConfig({ PROMETHEUS_URL: "http://127.0.0.1:9090", PROMETHEUS_AUTH: "none" }));
 * ```
 */
export function createHandler(config: Config, dependencies: Dependencies = {}): Handler {
  const logger = new Logger({ serviceName: config.serviceName, logLevel: config.logLevel });
  /**
   * The logger, naming `invocation` on what it writes next. Set only when a line is about to be written
   * (a fault, a timeout), not per request as Powertools' injectLambdaContext middleware does: that
   * middleware cost about 10% of a warm request, for lines written only on failures.
   */
  const loggerFor = (invocation: Invocation | undefined): Logger => {
    if (invocation?.lambda !== undefined) logger.addContext(invocation.lambda);
    logger.setCorrelationId(invocation?.correlationId);
    return logger;
  };
  const reportFault = (error: unknown, where: string, invocation?: Invocation): void => {
    loggerFor(invocation).error(
      `Unexpected failure in ${where}`,
      error instanceof Error ? error : describeThrown(error),
    );
  };
  for (const warning of dependencies.warnings ?? []) logger.warn(warning);
  const writesInfo = logsInfo(logger);
  // serverless offline gives every HTTP API event one placeholder request id, and `invoke local` replays an
  // event file's: there the invocation's own id (fresh for each) tells requests apart in the log.
  const localRun = config.isOffline || config.isLocal;
  const writesDebug = ["TRACE", "DEBUG"].includes(logger.getLevelName());
  const recorder = config.metrics
    ? new MetricsRecorder(config.metricsNamespace, config.serviceName)
    : undefined;
  const requestLine = new RequestLine(config.serviceName);
  // TRACING=on: the tracer loads now, during the cold start (a chunk of its own); off, it never loads.
  const tracing =
    dependencies.tracing !== undefined
      ? Promise.resolve(dependencies.tracing)
      : config.tracing
        ? startTracing(config.serviceName, reportFault)
        : undefined;

  /** The request's one line, its log record and its metrics together (see RequestLine). */
  function writeRequestLine(
    message: string,
    lambda: Context | undefined,
    correlationId: string | undefined,
    fields: () => Record<string, unknown>,
    summary: () => RequestSummary,
  ): void {
    requestLine.emit({
      log: writesInfo,
      message,
      lambda,
      correlationId,
      fields: writesInfo ? fields() : {},
      metrics: recorder === undefined ? [] : recorder.documents(summary()),
    });
  }

  const serverOptions = serverOptionsOf(config, dependencies.tools, !config.inLambda, reportFault);
  const bridgeTo = (makeServer: McpServerFactory) => (): Promise<Bridge> =>
    Bridge.open((forwarded) => {
      const server = makeServer(forwarded);
      dependencies.onServerCreated?.(server);
      return server;
    });
  const makeServer = mcpServerFactory(serverOptions);
  const openBridge = bridgeTo(makeServer);
  const sharedBridge = sharing(openBridge);
  // PYTHON_COMPAT is for the Python Lambda's (legacy) clients: 2026-07-28 requests get the spec's results.
  const modern: ModernOptions = {
    sharedBridge: config.pythonCompat
      ? sharing(
          bridgeTo(mcpServerFactory({ ...serverOptions, toolFailuresAsErrors: false, pythonLayout: false })),
        )
      : sharedBridge,
    identity: {
      name: SERVER_NAME,
      version: SERVER_VERSION,
      instructions: serverOptions.instructions,
      capabilities: TOOLS_CAPABILITY,
    },
  };

  const sessions =
    config.sessions === "off"
      ? undefined
      : new SessionManager({
          store: dependencies.sessionStore ?? sessionStoreFor(config, (message) => logger.warn(message)),
          ttlSeconds: config.sessionTtlSeconds,
          openBridge,
        });
  const mcpOptions: McpRouteOptions = {
    maxBodyBytes: config.maxBodyBytes,
    allowedOrigins: config.allowedOrigins,
    checkHost: config.isOffline,
    requiredScopes: config.oauth?.scopes ?? [],
    pythonCompat: config.pythonCompat,
    openBridge,
    sharedBridge,
    sessions,
    sessionsRequired: config.sessions === "required",
    modern,
  };

  /**
   * A fresh request context whose deadline leaves DEADLINE_MARGIN_MS to answer before the Lambda times
   * out, or before the front door stops waiting (`answerBy`), whichever comes first; `end()` it when answered.
   */
  function startRequestIn(
    lambda: Context | undefined,
    request: { principal: string | undefined; answerBy: number | undefined },
    replyBytes: number,
    report: RequestReport | undefined,
    trace: Trace | undefined,
    correlationId: string | undefined,
  ): StartedRequest {
    const remaining =
      typeof lambda?.getRemainingTimeInMillis === "function"
        ? lambda.getRemainingTimeInMillis()
        : DEFAULT_REMAINING_MS;
    const frontDoor = request.answerBy === undefined ? remaining : request.answerBy - Date.now();
    const invocation = { lambda, correlationId };
    return startRequest({
      timeoutMs: Math.min(remaining, frontDoor) - DEADLINE_MARGIN_MS,
      principal: request.principal,
      replyBytes,
      report,
      trace,
      invocation,
      debug: writesDebug ? (message, fields) => loggerFor(invocation).debug(message, fields) : undefined,
    });
  }

  async function handleHttp(
    request: HttpRequest,
    lambda: Context | undefined,
    correlationId: string | undefined,
    trace: Trace | undefined,
  ): Promise<HttpResponse> {
    const startedAt = performance.now();
    const report = recorder === undefined && !writesInfo ? undefined : new RequestReport();
    let served: McpRouteResult | undefined;
    let response: HttpResponse;
    const route = routeOf(request.path);
    if (route === "health" && request.method === "GET") {
      response = handleHealth(SERVER_NAME, SERVER_VERSION, request.headers.origin);
    } else if (route === "resource-metadata") {
      response = handleResourceMetadata(request, config.oauth);
    } else if (route === "mcp") {
      const started = startRequestIn(lambda, request, HTTP_REPLY_BYTES, report, trace, correlationId);
      try {
        served = await handleMcp(request, mcpOptions, started);
        response = served.response;
      } finally {
        started.end();
      }
    } else {
      response = jsonResponse(404, { error: "Not found" }, {});
    }
    annotateAnswer(trace, {
      route,
      status: response.statusCode,
      era: served?.era,
      mcpTraceId: served?.traceId,
    });
    writeRequestLine(
      "request",
      lambda,
      correlationId,
      () => ({
        // "-" for an empty value, which the logger would drop.
        method: cut(request.method || "-", LOGGED_HTTP_METHOD_CHARS),
        path: cut(request.path || "-", LOGGED_PATH_CHARS),
        status: response.statusCode,
        principal: loggedPrincipal(request.principal),
        ...summarizeMethods(served?.methods ?? []),
        ...(served?.era === undefined ? {} : { era: served.era }),
        ...(served?.traceId === undefined ? {} : { trace_id: served.traceId }),
        ...(served?.client === undefined ? {} : { client: loggedClient(served.client) }),
        ...toolFields(report),
        ms: elapsedSince(startedAt),
      }),
      () => ({
        route: route === "mcp" || route === "health" ? route : "other",
        status: response.statusCode,
        era: served?.era ?? "none",
        ...reported(report),
      }),
    );
    return response;
  }

  async function handleInvocation(
    payload: unknown,
    lambda: Context | undefined,
    correlationId: string | undefined,
    trace: Trace | undefined,
  ): Promise<unknown> {
    const startedAt = performance.now();
    const report = recorder === undefined && !writesInfo ? undefined : new RequestReport();
    const started = startRequestIn(
      lambda,
      { principal: undefined, answerBy: undefined },
      DIRECT_REPLY_BYTES,
      report,
      trace,
      correlationId,
    );
    try {
      const { result, outcome, era, traceId, status } = await handleDirect(
        payload,
        { pythonCompat: config.pythonCompat, openBridge, sharedBridge, modern },
        started,
      );
      annotateAnswer(trace, { route: "direct", status, era, mcpTraceId: traceId });
      writeRequestLine(
        "direct invocation",
        lambda,
        correlationId,
        () => ({
          outcome,
          principal: loggedPrincipal(undefined),
          ...summarizeMethods(methodNamesIn(payload)),
          era,
          ...(traceId === undefined ? {} : { trace_id: traceId }),
          ...toolFields(report),
          ms: elapsedSince(startedAt),
        }),
        () => ({ route: "direct", status, era, ...reported(report) }),
      );
      return result;
    } finally {
      started.end();
    }
  }

  async function route(event: unknown, lambda: Context): Promise<unknown> {
    const request = normalizeEvent(event);
    const correlationId =
      request.kind === "http" && !localRun
        ? (request.requestId ?? lambda?.awsRequestId)
        : lambda?.awsRequestId;
    const answer = (trace: Trace | undefined) =>
      request.kind === "http"
        ? handleHttp(request, lambda, correlationId, trace)
        : handleInvocation(request.payload, lambda, correlationId, trace);
    return tracing === undefined ? answer(undefined) : inInvocation(await tracing, answer);
  }

  return middy(route).onError((request) => {
    // Never throws: the answer is set first, from constants, and the log line cannot undo it.
    const timedOut = isMiddyTimeout(request.error);
    request.response = failureAnswer(request.event, timedOut);
    try {
      const invocation = { lambda: request.context, correlationId: request.context?.awsRequestId };
      if (timedOut) loggerFor(invocation).warn("request timed out before the handler answered");
      else reportFault(request.error, "handler", invocation);
      // Its metrics alone: the handler wrote no request line.
      if (recorder !== undefined) {
        const status = timedOut ? 200 : 500;
        requestLine.emit({
          log: false,
          message: "request",
          lambda: undefined,
          correlationId: undefined,
          fields: {},
          metrics: recorder.documents({
            route: isHttpEvent(request.event) ? "mcp" : "direct",
            status,
            era: "none",
            fault: !timedOut,
            timeouts: timedOut ? 1 : 0,
            rehydrations: 0,
            tools: [],
          }),
        });
      }
    } catch {
      // A failure to log a failure has nowhere left to go.
    }
  });
}

/**
 * What a request that failed outside every route gets: `-32001 Request timed out` (HTTP 200, as the
 * contract answers a deadline) when Middy gave up on it just before Lambda would have, else
 * `-32603 Internal error` (HTTP 500). An HTTP event gets an HTTP response, a direct invocation the
 * JSON-RPC error object itself.
 */
function failureAnswer(event: unknown, timedOut: boolean): unknown {
  const reply = timedOut
    ? errorReply(null, ErrorCode.RequestTimeout, "Request timed out")
    : serverFault(null);
  let http = false;
  try {
    http = isHttpEvent(event);
  } catch {
    // An event that cannot even be inspected was not sent by API Gateway.
  }
  return http ? jsonResponse(timedOut ? 200 : 500, reply, { "Access-Control-Allow-Origin": "*" }) : reply;
}

/** Middy's own early timeout (a few ms before Lambda's): the request ran out of time, the server is not at fault. */
function isMiddyTimeout(error: unknown): boolean {
  try {
    return (
      error instanceof Error &&
      error.name === "TimeoutError" &&
      (error.cause as { package?: unknown } | undefined)?.package === "@middy/core"
    );
  } catch {
    return false;
  }
}

/** Something thrown that is not an Error, for the log: never String() (a `toString` may be missing or throw). */
function describeThrown(value: unknown): string {
  try {
    if (typeof value === "string") return cut(value, LOGGED_THROWN_CHARS);
    return cut(JSON.stringify(value) ?? typeof value, LOGGED_THROWN_CHARS);
  } catch {
    return `a thrown ${typeof value}`;
  }
}

/*
 * The request log line is bounded whatever the caller sends: each field is cut, and the JSON-RPC
 * methods of a payload (up to a megabyte of them) are summarised as the distinct names, in the order
 * first seen (at most LOGGED_METHODS, each cut to LOGGED_NAME_CHARS), how many messages had each name,
 * and how many messages there were in all.
 */
const LOGGED_HTTP_METHOD_CHARS = 16;
const LOGGED_PATH_CHARS = 256;
const LOGGED_PRINCIPAL_CHARS = 256;
const LOGGED_NAME_CHARS = 64;
const LOGGED_METHODS = 10;
const LOGGED_THROWN_CHARS = 1000;

/** At most `max` characters of `text`, marked with "…" when cut, never splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/** The client software a request named (self-reported: for reading logs, never for decisions). */
function loggedClient(client: { name: string; version: string }): string {
  return `${cut(client.name, LOGGED_NAME_CHARS)}/${cut(client.version, LOGGED_NAME_CHARS)}`;
}

/** The caller named by the authorizer (IAM ARN, JWT `sub`), or "-" when none was. */
function loggedPrincipal(principal: string | undefined): string {
  return principal === undefined ? "-" : cut(principal, LOGGED_PRINCIPAL_CHARS);
}

interface MethodSummary {
  /** Distinct method names in the order first seen ("-" for a message without one), at most LOGGED_METHODS. */
  rpc: string[];
  /** How many messages had each name of `rpc`, in the same order. */
  rpc_counts: number[];
  /** How many JSON-RPC messages the payload held (more than the sum of `rpc_counts` when names were left out). */
  rpc_messages: number;
}

function summarizeMethods(methods: readonly string[]): MethodSummary {
  const counts = new Map<string, number>();
  for (const method of methods) {
    const name = cut(method, LOGGED_NAME_CHARS);
    const count = counts.get(name);
    if (count !== undefined) counts.set(name, count + 1);
    else if (counts.size < LOGGED_METHODS) counts.set(name, 1);
  }
  return { rpc: [...counts.keys()], rpc_counts: [...counts.values()], rpc_messages: methods.length };
}

/** The method of each message of a direct invocation's payload ("-" where there is none). */
function methodNamesIn(payload: unknown): string[] {
  // Array.from: a payload is JSON, but a caller in the same process may hand over a sparse array.
  const entries: unknown[] = Array.isArray(payload) ? Array.from(payload) : [payload];
  return entries.map((entry) => {
    const method = isPlainObject(entry) && Object.hasOwn(entry, "method") ? entry.method : undefined;
    return typeof method === "string" ? method : "-";
  });
}

/**
 * One bridge, opened on first use and kept for the container: the server behind it answers the
 * requests that change no MCP state, one after another or side by side (each under its own id and
 * deadline). A failure to open it is not kept: the next request tries again.
 */
function sharing(open: () => Promise<Bridge>): () => Promise<Bridge> {
  let shared: Promise<Bridge> | undefined;
  return () => {
    shared ??= open().catch((error: unknown) => {
      shared = undefined;
      throw error;
    });
    return shared;
  };
}

/** Tool calls named on the request line, at most this many (a batch may hold 100). */
const LOGGED_TOOL_CALLS = 10;

/**
 * The request line's account of its tool calls: each tool, how it went (`ok`, or the tool error's
 * kind: `rejected`, `unreachable`, `timeout`…), the result's bytes, the time and attempts spent
 * upstream; and the replies answered `-32001` at the deadline.
 */
function toolFields(report: RequestReport | undefined): Record<string, unknown> {
  if (report === undefined) return {};
  const fields: Record<string, unknown> = {};
  if (report.tools.length > 0) {
    fields.tools = report.tools.slice(0, LOGGED_TOOL_CALLS).map((call) => ({
      tool: cut(call.tool, LOGGED_NAME_CHARS),
      outcome: call.failed ? (call.errorKind ?? "error") : "ok",
      bytes: call.resultBytes,
      ...(call.truncated ? { truncated: true } : {}),
      upstream_ms: Math.round(call.upstreamMs * 100) / 100,
      attempts: call.upstreamAttempts,
      ms: Math.round(call.ms * 100) / 100,
    }));
    if (report.tools.length > LOGGED_TOOL_CALLS) fields.tool_calls = report.tools.length;
  }
  if (report.timeouts > 0) fields.timeouts = report.timeouts;
  return fields;
}

/** What a request's layers reported, for its metrics (nothing when metrics are off). */
function reported(
  report: RequestReport | undefined,
): Pick<RequestSummary, "fault" | "timeouts" | "rehydrations" | "tools"> {
  return {
    fault: (report?.faults ?? 0) > 0,
    timeouts: report?.timeouts ?? 0,
    rehydrations: report?.rehydrations ?? 0,
    tools: report?.tools ?? [],
  };
}

/** Whether `logger` writes INFO lines at its current level. */
function logsInfo(logger: Logger): boolean {
  const level = logger.getLevelName();
  return level === "TRACE" || level === "DEBUG" || level === "INFO";
}

/** Loads the tracer; a failure to is logged once and leaves the function untraced, never failing a request. */
function startTracing(
  serviceName: string,
  reportFault: (error: unknown, where: string) => void,
): Promise<Tracing | undefined> {
  return loadTracing(serviceName).catch((error: unknown) => {
    reportFault(error, "loading the tracer (TRACING=on)");
    return undefined;
  });
}

/** SESSION_STORE: this container's memory, a directory of files (locally), or DynamoDB (SESSION_TABLE). */
function sessionStoreFor(config: Config, warn: (message: string) => void): SessionStore {
  if (config.sessionTable === undefined) {
    return config.sessionStore === "file"
      ? new FileSessionStore({ directory: config.sessionDir, onWarning: warn })
      : new MemorySessionStore();
  }
  return new DynamoSessionStore({
    tableName: config.sessionTable,
    region: config.awsRegion,
    endpoint: config.dynamodbEndpoint,
  });
}

function elapsedSince(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
