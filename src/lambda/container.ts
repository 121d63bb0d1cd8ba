import { Logger } from "@aws-lambda-powertools/logger";
import type { Context } from "aws-lambda";
import type { Tool } from "../../tools/types.js";
import type { Config } from "../config/index.js";
import { type Invocation, type StartedRequest, startRequest } from "../context.js";
import { requestTimeoutMs } from "../deadline.js";
import type { DirectInvocation, HttpRequest } from "../http/event.js";
import { Bridge } from "../mcp/bridge/bridge.js";
import type { Server } from "../mcp/sdk.js";
import {
  type McpServerFactory,
  mcpServerFactory,
  SERVER_NAME,
  SERVER_VERSION,
  TOOLS_CAPABILITY,
} from "../mcp/server.js";
import { serverOptionsOf } from "../mcp/serverOptions.js";
import { MetricsRecorder, type RequestSummary } from "../metrics/emf.js";
import { RequestReport } from "../metrics/report.js";
import { RequestLine } from "../metrics/requestLine.js";
import { BUFFERED_LIMITS, STREAMED_LIMITS } from "../routes/ceiling.js";
import type { DirectOptions } from "../routes/direct.js";
import type { McpRouteOptions } from "../routes/mcp.js";
import { lazyStore } from "../sessions/lazyStore.js";
import { SessionManager } from "../sessions/manager.js";
import { MemorySessionStore } from "../sessions/memoryStore.js";
import type { SessionStore } from "../sessions/store.js";
import { DynamoStreamEvents, type StreamEventStore } from "../sessions/streamEvents.js";
import { loadTracing, type Trace, type Tracing } from "../tracing/trace.js";
import { memoize } from "../util/memoize.js";
import { VIEWS_CAPABILITY } from "../views/rangeView.js";
import { describeThrown } from "./requestLog.js";

/** What a handler is built from besides its configuration; the defaults are what production uses. */
export interface Dependencies {
  /** The MCP tools served (default: those TOOLS names, every tool unless configured). */
  tools?: readonly Tool[];
  /** Where sessions live (default: as SESSION_STORE and SESSION_TABLE say). */
  sessionStore?: SessionStore;
  /** Sees every MCP server the handler builds (tests inspect them). */
  onServerCreated?: (server: Server) => void;
  /** The tracing used whatever TRACING says (default: X-Ray through Powertools Tracer when TRACING=on). */
  tracing?: Tracing;
  /** Configuration mistakes to log once, at cold start (configWarnings of the function's environment). */
  warnings?: readonly string[];
}

/**
 * Everything a handler builds once per container and every request shares: the logger and the request
 * line, metrics, tracing, the MCP servers' bridges, the session manager and the routes' options.
 */
export interface Container {
  config: Config;
  /** The logger, naming `invocation` on what it writes next. */
  loggerFor(invocation: Invocation | undefined): Logger;
  /** Logs a failure that is not the caller's: its error and where it happened. */
  reportFault(error: unknown, where: string, invocation?: Invocation): void;
  /** A report for one request, when anything reads it (metrics on, or INFO lines). */
  newReport(): RequestReport | undefined;
  /** The request's one line, its log record and its metrics together (see RequestLine). */
  writeRequestLine(line: {
    message: string;
    lambda: Context | undefined;
    correlationId: string | undefined;
    fields: () => Record<string, unknown>;
    summary: () => RequestSummary;
  }): void;
  /** A request's metrics without a log line (the last-resort answer: the handler wrote none). */
  writeMetricsOnly(summary: RequestSummary): void;
  /** The tracer, loading (TRACING=on) or given; undefined when requests are not traced. */
  tracing: Promise<Tracing | undefined> | undefined;
  /** The correlation id of a request: API Gateway's request id, or locally the invocation's own. */
  correlationIdOf(request: HttpRequest | DirectInvocation, lambda: Context | undefined): string | undefined;
  /** A fresh request context under the one deadline formula; `end()` it when answered. */
  startRequestIn(
    lambda: Context | undefined,
    request: {
      principal: string | undefined;
      answerBy: number | undefined;
      /** The caller's tenant as the edge decided it (src/http/middleware/tenant.ts). */
      tenant?: string | undefined;
    },
    replyBytes: number,
    report: RequestReport | undefined,
    trace: Trace | undefined,
    correlationId: string | undefined,
  ): StartedRequest;
  mcpOptions: McpRouteOptions;
  directOptions: DirectOptions;
}

/**
 * Builds a handler's container for `config`: its logger, metrics, tracing, servers and sessions.
 * `streamed`: a streaming front door carries its answers (src/lambda/streaming.ts), so an answer may be as
 * large as a stream (routes/ceiling.ts) and take as long as the function may run: a streaming
 * integration does not stop waiting after API Gateway's 29 s.
 */
export function buildContainer(config: Config, dependencies: Dependencies, streamed = false): Container {
  const logger = new Logger({ serviceName: config.serviceName, logLevel: config.logLevel });
  // Set only when a line is about to be written, not per request as Powertools' injectLambdaContext
  // does: a measurable share of a warm request (bench case warm-tools-call-info) for failure lines.
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
  const writesDebug = ["TRACE", "DEBUG"].includes(logger.getLevelName());
  const recorder = config.metrics
    ? new MetricsRecorder(config.metricsNamespace, config.serviceName)
    : undefined;
  const requestLine = new RequestLine(config.serviceName);
  const warn = (message: string, fields: Record<string, unknown> = {}, invocation?: Invocation) =>
    (invocation === undefined ? logger : loggerFor(invocation)).warn(message, fields);
  const { mcpOptions, directOptions } = routeOptions(config, dependencies, streamed, reportFault, warn);
  return {
    config,
    loggerFor,
    reportFault,
    newReport: () => (recorder === undefined && !writesInfo ? undefined : new RequestReport()),
    writeRequestLine: ({ message, lambda, correlationId, fields, summary }) =>
      requestLine.emit({
        log: writesInfo,
        message,
        lambda,
        correlationId,
        fields: writesInfo ? fields() : {},
        metrics: recorder === undefined ? [] : recorder.documents(summary()),
      }),
    writeMetricsOnly: (summary) => {
      if (recorder === undefined) return;
      requestLine.emit({
        log: false,
        message: "request",
        lambda: undefined,
        correlationId: undefined,
        fields: {},
        metrics: recorder.documents(summary),
      });
    },
    // TRACING=on: the tracer loads now, during the cold start (a chunk of its own); off, it never loads.
    tracing:
      dependencies.tracing !== undefined
        ? Promise.resolve(dependencies.tracing)
        : config.tracing
          ? startTracing(config.serviceName, reportFault)
          : undefined,
    // serverless offline gives every HTTP API event one placeholder request id, and `invoke local` replays
    // an event file's: there the invocation's own id (fresh for each) tells requests apart in the log.
    correlationIdOf: (request, lambda) =>
      config.isOffline || config.isLocal || request.kind !== "http"
        ? lambda?.awsRequestId
        : (request.requestId ?? lambda?.awsRequestId),
    startRequestIn: (lambda, request, replyBytes, report, trace, correlationId) => {
      const invocation = { lambda, correlationId };
      return startRequest({
        timeoutMs: requestTimeoutMs(lambda, streamed ? undefined : request.answerBy),
        principal: request.principal,
        tenant: request.tenant,
        replyBytes,
        report,
        trace,
        invocation,
        debug: writesDebug ? (message, fields) => loggerFor(invocation).debug(message, fields) : undefined,
      });
    },
    mcpOptions,
    directOptions,
  };
}

/** The MCP servers behind their bridges, the sessions, and the options of the /mcp and direct routes. */
function routeOptions(
  config: Config,
  dependencies: Dependencies,
  streamed: boolean,
  reportFault: Container["reportFault"],
  warn: (message: string, fields?: Record<string, unknown>, invocation?: Invocation) => void,
): { mcpOptions: McpRouteOptions; directOptions: DirectOptions } {
  const serverOptions = serverOptionsOf(config, dependencies.tools, !config.inLambda, reportFault);
  const bridgeTo = (makeServer: McpServerFactory) => (): Promise<Bridge> =>
    Bridge.open((forwarded) => {
      const server = makeServer(forwarded);
      dependencies.onServerCreated?.(server);
      return server;
    });
  const openBridge = bridgeTo(mcpServerFactory(serverOptions));
  // One bridge, opened on first use and kept for the container: the server behind it answers the
  // requests that change no MCP state, one after another or side by side (each under its own id and
  // deadline). A failure to open it is not kept: the next request tries again.
  const sharedBridge = memoize(openBridge, { onRejection: "retry" });
  const modern = {
    // PYTHON_COMPAT is for the Python Lambda's (legacy) clients: 2026-07-28 requests get the spec's results.
    sharedBridge: config.pythonCompat
      ? memoize(
          bridgeTo(mcpServerFactory({ ...serverOptions, toolFailuresAsErrors: false, pythonLayout: false })),
          { onRejection: "retry" },
        )
      : sharedBridge,
    identity: {
      name: SERVER_NAME,
      version: SERVER_VERSION,
      instructions: serverOptions.instructions,
      capabilities: serverOptions.views ? { ...TOOLS_CAPABILITY, ...VIEWS_CAPABILITY } : TOOLS_CAPABILITY,
    },
    views: serverOptions.views,
  };
  const sessions =
    config.sessions === "off"
      ? undefined
      : new SessionManager({
          store: dependencies.sessionStore ?? sessionStoreFor(config, warn),
          ttlSeconds: config.sessionTtlSeconds,
          openBridge,
          warn: (message, fields, context) => warn(message, fields, context.invocation),
        });
  return {
    mcpOptions: {
      maxBodyBytes: config.maxBodyBytes,
      allowedOrigins: config.allowedOrigins,
      checkHost: config.isOffline,
      requiredScopes: config.oauth?.scopes ?? [],
      tenantClaim: config.tenants?.claim,
      allowedTenants: config.tenants?.allowed ?? [],
      pythonCompat: config.pythonCompat,
      openBridge,
      sharedBridge,
      sessions,
      sessionsRequired: config.sessions === "required",
      modern,
      limits: streamed ? STREAMED_LIMITS : BUFFERED_LIMITS,
      resumption: streamed && sessions !== undefined ? streamEventsFor(config) : undefined,
    },
    directOptions: { pythonCompat: config.pythonCompat, openBridge, sharedBridge, modern },
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
/** Where a streaming front door keeps stream events for resumption: beside DynamoDB sessions only. */
function streamEventsFor(config: Config): StreamEventStore | undefined {
  if (config.sessionTable === undefined) return undefined;
  return new DynamoStreamEvents({
    tableName: config.sessionTable,
    region: config.awsRegion,
    endpoint: config.dynamodbEndpoint,
  });
}

function sessionStoreFor(config: Config, warn: (message: string) => void): SessionStore {
  if (config.sessionTable === undefined) {
    if (config.sessionStore !== "file") return new MemorySessionStore();
    return lazyStore(async () => {
      const { FileSessionStore } = await import("../sessions/fileStore.js");
      return new FileSessionStore({ directory: config.sessionDir, onWarning: warn });
    });
  }
  const tableName = config.sessionTable;
  return lazyStore(async () => {
    const { DynamoSessionStore } = await import("../sessions/dynamoStore.js");
    return new DynamoSessionStore({
      tableName,
      region: config.awsRegion,
      endpoint: config.dynamodbEndpoint,
    });
  });
}
