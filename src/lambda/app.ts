import middy, { type MiddyfiedHandler } from "@middy/core";
import type { Context } from "aws-lambda";
import type { Config } from "../config/index.js";
import { normalizeEvent } from "../http/event.js";
import { edgeEvent } from "../http/middleware/index.js";
import { type HttpResponse, jsonResponse } from "../http/responses.js";
import { routeOf } from "../http/route.js";
import { SERVER_NAME, SERVER_VERSION } from "../mcp/server.js";
import { type Answer, httpAnswer } from "../routes/answer.js";
import { DIRECT_REPLY_BYTES } from "../routes/ceiling.js";
import { handleDirect } from "../routes/direct.js";
import { handleHealth } from "../routes/health.js";
import { handleResourceMetadata } from "../routes/resourceMetadata.js";
import { annotateAnswer, inInvocation, type Trace } from "../tracing/trace.js";
import { buildContainer, type Container, type Dependencies } from "./container.js";
import { lastResort } from "./lastResort.js";
import { type McpCall, type McpThroughEdge, mcpThroughEdge, type SinkFor } from "./mcpThroughEdge.js";
import * as log from "./requestLog.js";

export type { Dependencies } from "./container.js";
export type { SinkFor } from "./mcpThroughEdge.js";
export type Handler = MiddyfiedHandler<unknown, unknown, Error, Context>;

/**
 * Builds the Lambda handler for one configuration: the request's path from the event to its answer.
 * What it caches belongs to its container (container.ts): two handlers in one process share nothing.
 *
 * @example
 * ```ts
 * export const handler = createHandler(configFromEnvironment());
 * ```
 */
export function createHandler(config: Config, dependencies: Dependencies = {}): Handler {
  const container = buildContainer(config, dependencies);
  const route = routerFor(container);
  const handler = (event: unknown, lambda: Context) => route(event, lambda, undefined);
  return middy(handler).onError(lastResort(container));
}

/** The path from the event (`request`, when read already) to its answer; `sinkFor` for a streamed answer. */
export function routerFor(container: Container) {
  const { tracing } = container;
  const mcp = mcpThroughEdge(container);
  return async (
    event: unknown,
    lambda: Context,
    sinkFor: SinkFor | undefined,
    request = normalizeEvent(event),
  ): Promise<unknown> => {
    const correlationId = container.correlationIdOf(request, lambda);
    const answer = (trace: Trace | undefined) =>
      request.kind === "http"
        ? answerHttp(container, mcp, { ...edgeEvent(request), lambda, correlationId, trace, sinkFor })
        : answerInvocation(container, request.payload, lambda, correlationId, trace);
    return tracing === undefined ? answer(undefined) : inInvocation(await tracing, answer);
  };
}

/** An HTTP request (API Gateway, Function URL): its route's answer, then its request line. */
async function answerHttp(container: Container, mcp: McpThroughEdge, call: Omit<McpCall, "report">) {
  const { request, lambda, correlationId, trace } = call;
  const startedAt = performance.now();
  const report = container.newReport();
  const route = routeOf(request.path);
  let answer: Answer<HttpResponse>;
  if (route === "health" && request.method === "GET") {
    answer = httpAnswer(handleHealth(SERVER_NAME, SERVER_VERSION, request.headers.origin));
  } else if (route === "resource-metadata") {
    answer = httpAnswer(handleResourceMetadata(request, container.config.oauth));
  } else if (route === "mcp") {
    answer = await mcp({ ...call, report }, lambda);
  } else {
    answer = httpAnswer(jsonResponse(404, { error: "Not found" }, {}));
  }
  const { status, era, traceId, client } = answer;
  annotateAnswer(trace, { route, status, era, mcpTraceId: traceId });
  container.writeRequestLine({
    message: "request",
    lambda,
    correlationId,
    fields: () => ({
      method: log.loggedMethod(request.method),
      path: log.loggedPath(request.path),
      status,
      principal: log.loggedPrincipal(request.principal),
      ...log.summarizeMethods(answer.methods),
      ...(era === undefined ? {} : { era }),
      ...(traceId === undefined ? {} : { trace_id: traceId }),
      ...(client === undefined ? {} : { client: log.loggedClient(client) }),
      ...log.toolFields(report),
      ms: log.elapsedSince(startedAt),
    }),
    summary: () => ({
      route: route === "mcp" || route === "health" ? route : "other",
      status,
      era: era ?? "none",
      ...log.reported(report),
    }),
  });
  return answer.body;
}

/** A direct invocation (the payload is JSON-RPC itself): its reply, then its request line. */
async function answerInvocation(
  container: Container,
  payload: unknown,
  lambda: Context | undefined,
  correlationId: string | undefined,
  trace: Trace | undefined,
): Promise<unknown> {
  const startedAt = performance.now();
  const report = container.newReport();
  const noHttp = { principal: undefined, answerBy: undefined };
  const started = container.startRequestIn(lambda, noHttp, DIRECT_REPLY_BYTES, report, trace, correlationId);
  try {
    const answer = await handleDirect(payload, container.directOptions, started);
    const { status, era = "legacy", traceId } = answer;
    annotateAnswer(trace, { route: "direct", status, era, mcpTraceId: traceId });
    container.writeRequestLine({
      message: "direct invocation",
      lambda,
      correlationId,
      fields: () => ({
        outcome: answer.outcome,
        principal: log.loggedPrincipal(undefined),
        ...log.summarizeMethods(answer.methods),
        era,
        ...(traceId === undefined ? {} : { trace_id: traceId }),
        ...log.toolFields(report),
        ms: log.elapsedSince(startedAt),
      }),
      summary: () => ({ route: "direct", status, era, ...log.reported(report) }),
    });
    return answer.body;
  } finally {
    started.end();
  }
}
