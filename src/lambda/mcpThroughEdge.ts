import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { type StreamSink, withStreamSink } from "../context.js";
import { type Decided, type EdgeEvent, edgeMiddlewares } from "../http/middleware/index.js";
import type { HttpResponse } from "../http/responses.js";
import type { Answer } from "../routes/answer.js";
import { handleMcp } from "../routes/mcp.js";
import type { Trace } from "../tracing/trace.js";
import type { Container } from "./container.js";

/**
 * The stream sink of a streamed answer, made from what the edge decided of its request (its CORS
 * headers and session for the event stream's headers, the session for keeping its events).
 */
export type SinkFor = (decided: Decided) => StreamSink;

/** One `/mcp` request on its way through the edge (src/http/middleware/) to the route. */
export interface McpCall extends EdgeEvent {
  lambda: Context;
  correlationId: string | undefined;
  trace: Trace | undefined;
  report: ReturnType<Container["newReport"]>;
  sinkFor: SinkFor | undefined;
}

/**
 * `/mcp` behind the HTTP rules, composed once (src/http/middleware/index.ts) for the buffered and the
 * streamed entries: a request the rules refuse is answered by them (Middy's early return); the route
 * and its request context get one that passed, with what the rules decided (CORS, session, tenant).
 * No early timeout of its own: the entry's Middy has one, and a streamed answer runs to its end.
 */
export function mcpThroughEdge(container: Container) {
  const route = async (call: McpCall): Promise<Answer<HttpResponse>> => {
    const { request, decided, lambda, report, trace, correlationId, sinkFor } = call;
    const replyBytes = container.mcpOptions.limits.replyBytes;
    const requester = { principal: request.principal, answerBy: request.answerBy, tenant: decided.tenant };
    const started = container.startRequestIn(lambda, requester, replyBytes, report, trace, correlationId);
    try {
      const sink = sinkFor?.(decided);
      const context = sink === undefined ? started : withStreamSink(started, sink);
      return await handleMcp(call, container.mcpOptions, context, sink);
    } finally {
      started.end();
    }
  };
  return middy<McpCall, Answer<HttpResponse>>(route, { timeoutEarlyInMillis: 0 }).use(
    edgeMiddlewares(container.mcpOptions),
  );
}

export type McpThroughEdge = ReturnType<typeof mcpThroughEdge>;
