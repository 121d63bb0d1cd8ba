import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { Bridge } from "./bridge/bridge.js";
import { errorReply, INTERNAL_ERROR } from "./bridge/jsonrpc.js";
import { type Config, loadConfig } from "./config.js";
import { type HttpRequest, normalizeEvent } from "./http/event.js";
import { type HttpResponse, jsonResponse, jsonRpcErrorResponse } from "./http/responses.js";
import { routeOf } from "./http/route.js";
import { handleHealth } from "./routes/health.js";
import { dispatchClosing, handleMcp, toDirectResult } from "./routes/mcp.js";
import { createMcpServer, SERVER_NAME, SERVER_VERSION, type ServerState } from "./server.js";
import { DynamoSessionStore } from "./sessions/dynamoStore.js";
import { SessionManager } from "./sessions/manager.js";
import { MemorySessionStore } from "./sessions/memoryStore.js";

/** A request still running when the Lambda has this little time left is answered `-32001`. */
export const DEADLINE_MARGIN_MS = 500;
const DEFAULT_REMAINING_MS = 30_000;

const config: Config = loadConfigOrFail();
const logger = new Logger({ serviceName: SERVER_NAME, logLevel: config.logLevel });

function loadConfigOrFail(): Config {
  try {
    return loadConfig();
  } catch (error) {
    // One clear line at cold start, not a stack trace.
    if (error instanceof Error) error.stack = `${error.name}: ${error.message}`;
    throw error;
  }
}

const toolSettings = {
  prometheusUrl: config.prometheusUrl,
  prometheusAuth: config.prometheusAuth,
  defaultRegion: config.awsRegion,
  ampEndpoint: config.ampEndpoint,
  profileSupported: !config.inLambda,
};

function reportFault(error: unknown, where: string): void {
  logger.error(`Unexpected failure in ${where}`, error instanceof Error ? error : String(error));
}

function deadlineOf(context: Context): number {
  const remaining =
    typeof context?.getRemainingTimeInMillis === "function"
      ? context.getRemainingTimeInMillis()
      : DEFAULT_REMAINING_MS;
  return Date.now() + remaining - DEADLINE_MARGIN_MS;
}

function openBridge(state: ServerState): Promise<Bridge> {
  return Bridge.attach(
    createMcpServer({
      settings: toolSettings,
      toolFailuresAsErrors: config.pythonCompat,
      state,
      onFault: reportFault,
    }),
  );
}

/** A fresh MCP server per request: stateless callers share no MCP state (log level, client info). */
function openBridgeUntil(deadlineAt: number): () => Promise<Bridge> {
  return () => openBridge({ deadlineAt, data: {} });
}

const sessions: SessionManager | undefined =
  config.sessions === "off"
    ? undefined
    : new SessionManager({
        store: config.sessionTable
          ? new DynamoSessionStore({
              tableName: config.sessionTable,
              region: config.awsRegion,
              endpoint: config.dynamodbEndpoint,
            })
          : new MemorySessionStore(),
        ttlSeconds: config.sessionTtlSeconds,
        openBridge,
      });

async function handleHttp(request: HttpRequest, context: Context): Promise<HttpResponse> {
  const started = performance.now();
  let methods: string[] = [];
  let response: HttpResponse;
  const route = routeOf(request.path);
  if (route === "health" && request.method === "GET") {
    response = handleHealth(SERVER_NAME, SERVER_VERSION, request.headers.origin);
  } else if (route === "mcp") {
    const deadlineAt = deadlineOf(context);
    const result = await handleMcp(request, {
      maxBodyBytes: config.maxBodyBytes,
      allowedOrigins: config.allowedOrigins,
      checkHost: config.isOffline,
      pythonCompat: config.pythonCompat,
      deadlineAt,
      openBridge: openBridgeUntil(deadlineAt),
      sessions,
      sessionsRequired: config.sessions === "required",
    });
    ({ response, methods } = result);
  } else {
    response = jsonResponse(404, { error: "Not found" }, {});
  }
  logger.info("request", {
    method: request.method,
    path: request.path,
    status: response.statusCode,
    rpc: methods,
    ms: Math.round((performance.now() - started) * 100) / 100,
  });
  return response;
}

async function handleDirect(payload: unknown, context: Context): Promise<unknown> {
  const started = performance.now();
  const deadlineAt = deadlineOf(context);
  const outcome = await dispatchClosing(payload, { deadlineAt, openBridge: openBridgeUntil(deadlineAt) });
  logger.info("direct invocation", {
    outcome: outcome.kind,
    ms: Math.round((performance.now() - started) * 100) / 100,
  });
  return toDirectResult(outcome, config.pythonCompat);
}

async function route(event: unknown, context: Context): Promise<unknown> {
  const request = normalizeEvent(event);
  logger.setCorrelationId(
    request.kind === "http" ? (request.requestId ?? context?.awsRequestId) : context?.awsRequestId,
  );
  return request.kind === "http" ? handleHttp(request, context) : handleDirect(request.payload, context);
}

export const handler = middy(route)
  .use(injectLambdaContext(logger, { logEvent: false, resetKeys: true }))
  .onError((request) => {
    reportFault(request.error, "handler");
    const isHttp = normalizeEvent(request.event).kind === "http";
    request.response = isHttp
      ? jsonRpcErrorResponse(500, INTERNAL_ERROR, "Internal error", { "Access-Control-Allow-Origin": "*" })
      : errorReply(null, INTERNAL_ERROR, "Internal error");
  });
