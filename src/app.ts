import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy, { type MiddyfiedHandler } from "@middy/core";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Context } from "aws-lambda";
import { tools as ampTools } from "../tools/index.js";
import type { Tool, ToolSettings } from "../tools/types.js";
import { Bridge } from "./bridge/bridge.js";
import { serverFault } from "./bridge/jsonrpc.js";
import type { Config } from "./config.js";
import { type StartedRequest, startRequest } from "./context.js";
import { type HttpRequest, isHttpEvent, normalizeEvent } from "./http/event.js";
import { type HttpResponse, jsonResponse } from "./http/responses.js";
import { routeOf } from "./http/route.js";
import { createUpstream } from "./prometheus/upstream.js";
import { DIRECT_REPLY_BYTES, HTTP_REPLY_BYTES } from "./routes/ceiling.js";
import { handleDirect } from "./routes/direct.js";
import { handleHealth } from "./routes/health.js";
import { handleMcp, type McpRouteOptions } from "./routes/mcp.js";
import { mcpServerFactory, SERVER_NAME, SERVER_VERSION } from "./server.js";
import { DynamoSessionStore } from "./sessions/dynamoStore.js";
import { SessionManager } from "./sessions/manager.js";
import { MemorySessionStore } from "./sessions/memoryStore.js";
import type { SessionStore } from "./sessions/store.js";

/** A request still running when the Lambda has this little time left is answered `-32001`. */
const DEADLINE_MARGIN_MS = 500;
/** Time allowed where no Lambda context tells the remaining time (direct calls in tests, scripts). */
const DEFAULT_REMAINING_MS = 30_000;

/** What a handler is built from besides its configuration; the defaults are what production uses. */
export interface Dependencies {
  /** The MCP tools served (default: the five AMP tools). */
  tools?: readonly Tool[];
  /** Where sessions live (default: DynamoDB when `SESSION_TABLE` is set, else this container's memory). */
  sessionStore?: SessionStore;
  /** Sees every MCP server the handler builds (tests inspect them). */
  onServerCreated?: (server: McpServer) => void;
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
  const logger = new Logger({ serviceName: SERVER_NAME, logLevel: config.logLevel });
  const reportFault = (error: unknown, where: string): void => {
    logger.error(`Unexpected failure in ${where}`, error instanceof Error ? error : String(error));
  };

  const settings: ToolSettings = {
    prometheusUrl: config.prometheusUrl,
    prometheusAuth: config.prometheusAuth,
    defaultRegion: config.awsRegion,
    ampEndpoint: config.ampEndpoint,
    profileSupported: !config.inLambda,
  };
  const makeServer = mcpServerFactory({
    tools: dependencies.tools ?? ampTools,
    settings,
    upstream: createUpstream(settings),
    toolFailuresAsErrors: config.pythonCompat,
    pythonLayout: config.pythonCompat,
    maxResultBytes: config.maxResultBytes,
    onFault: reportFault,
  });
  const openBridge = (): Promise<Bridge> =>
    Bridge.open((forwarded) => {
      const server = makeServer(forwarded);
      dependencies.onServerCreated?.(server);
      return server;
    });

  const sessions =
    config.sessions === "off"
      ? undefined
      : new SessionManager({
          store: dependencies.sessionStore ?? sessionStoreFor(config),
          ttlSeconds: config.sessionTtlSeconds,
          openBridge,
        });
  const mcpOptions: McpRouteOptions = {
    maxBodyBytes: config.maxBodyBytes,
    allowedOrigins: config.allowedOrigins,
    checkHost: config.isOffline,
    pythonCompat: config.pythonCompat,
    openBridge,
    sessions,
    sessionsRequired: config.sessions === "required",
  };

  /** A fresh request context whose deadline leaves DEADLINE_MARGIN_MS to answer; `end()` it when answered. */
  function startRequestIn(
    lambda: Context | undefined,
    principal: string | undefined,
    replyBytes: number,
  ): StartedRequest {
    const remaining =
      typeof lambda?.getRemainingTimeInMillis === "function"
        ? lambda.getRemainingTimeInMillis()
        : DEFAULT_REMAINING_MS;
    return startRequest({ timeoutMs: remaining - DEADLINE_MARGIN_MS, principal, replyBytes });
  }

  async function handleHttp(request: HttpRequest, lambda: Context | undefined): Promise<HttpResponse> {
    const startedAt = performance.now();
    let methods: string[] = [];
    let response: HttpResponse;
    const route = routeOf(request.path);
    if (route === "health" && request.method === "GET") {
      response = handleHealth(SERVER_NAME, SERVER_VERSION, request.headers.origin);
    } else if (route === "mcp") {
      const started = startRequestIn(lambda, request.principal, HTTP_REPLY_BYTES);
      try {
        ({ response, methods } = await handleMcp(request, mcpOptions, started));
      } finally {
        started.end();
      }
    } else {
      response = jsonResponse(404, { error: "Not found" }, {});
    }
    logger.info("request", {
      method: request.method,
      path: request.path,
      status: response.statusCode,
      rpc: methods,
      ms: elapsedSince(startedAt),
    });
    return response;
  }

  async function handleInvocation(payload: unknown, lambda: Context | undefined): Promise<unknown> {
    const startedAt = performance.now();
    const started = startRequestIn(lambda, undefined, DIRECT_REPLY_BYTES);
    try {
      const { result, outcome } = await handleDirect(
        payload,
        { pythonCompat: config.pythonCompat, openBridge },
        started,
      );
      logger.info("direct invocation", { outcome, ms: elapsedSince(startedAt) });
      return result;
    } finally {
      started.end();
    }
  }

  async function route(event: unknown, lambda: Context): Promise<unknown> {
    const request = normalizeEvent(event);
    logger.setCorrelationId(
      request.kind === "http" ? (request.requestId ?? lambda?.awsRequestId) : lambda?.awsRequestId,
    );
    return request.kind === "http" ? handleHttp(request, lambda) : handleInvocation(request.payload, lambda);
  }

  return middy(route)
    .use(injectLambdaContext(logger, { logEvent: false, resetKeys: true }))
    .onError((request) => {
      reportFault(request.error, "handler");
      const fault = serverFault(null);
      request.response = isHttpEvent(request.event)
        ? jsonResponse(500, fault, { "Access-Control-Allow-Origin": "*" })
        : fault;
    });
}

function sessionStoreFor(config: Config): SessionStore {
  if (config.sessionTable === undefined) return new MemorySessionStore();
  return new DynamoSessionStore({
    tableName: config.sessionTable,
    region: config.awsRegion,
    endpoint: config.dynamodbEndpoint,
  });
}

function elapsedSince(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
