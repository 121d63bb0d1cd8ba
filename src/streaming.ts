import { PassThrough } from "node:stream";
import middy from "@middy/core";
import type { JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "aws-lambda";
import { routerFor } from "./app.js";
import type { Config } from "./config.js";
import { buildContainer, type Dependencies } from "./container.js";
import { type HttpRequest, normalizeEvent } from "./http/event.js";
import { corsHeaders, type HttpResponse } from "./http/responses.js";
import { routeOf } from "./http/route.js";
import { isOriginAllowed } from "./http/rules.js";
import { lastResort } from "./lastResort.js";
import { serverFault } from "./protocol/jsonrpc.js";

/**
 * While an SSE answer waits on a slow query, a comment line this often keeps the connection in use,
 * well inside the idle limits of the streaming front doors (minutes).
 */
export const KEEPALIVE_MS = 15_000;

/**
 * The Lambda handler for a streaming front door (a Function URL in RESPONSE_STREAM mode, a REST API
 * with response streaming), through the Node runtime's `awslambda.streamifyResponse` (Middy's
 * `streamifyResponse`). Every request is answered as createHandler answers it, except a POST to /mcp
 * that accepts `text/event-stream` and whose tool call tells its progress: from its first
 * notification it is answered as SSE, each notification an event as it happens and the reply last.
 * A request with nothing to stream gets exactly today's JSON.
 *
 * @example
 * ```ts
 * export const handler = createStreamingHandler(configFromEnvironment());
 * ```
 */
export function createStreamingHandler(config: Config, dependencies: Dependencies = {}) {
  const container = buildContainer(config, dependencies, true);
  const route = routerFor(container);
  const answer = async (event: unknown, lambda: Context): Promise<unknown> => {
    const request = normalizeEvent(event);
    // A direct invocation's reply is JSON-RPC itself: streamed as its JSON text.
    if (request.kind !== "http") return JSON.stringify((await route(event, lambda, undefined)) ?? null);
    if (!acceptsEvents(request)) return route(event, lambda, undefined);
    const serve = (notify: Notify) => route(event, lambda, notify) as Promise<HttpResponse>;
    const invocation = { lambda, correlationId: lambda?.awsRequestId };
    return streamedOrWhole(request, config, serve, (error) =>
      container.reportFault(error, "streamed answer", invocation),
    );
  };
  return middy(answer, { streamifyResponse: true }).onError(lastResort(container));
}

/** A POST to /mcp whose client takes an SSE answer (MCP clients accept both JSON and SSE). */
function acceptsEvents(request: HttpRequest): boolean {
  return (
    request.method === "POST" &&
    routeOf(request.path) === "mcp" &&
    /\btext\/event-stream\b/i.test(request.headers.accept ?? "")
  );
}

type Notify = (notification: JSONRPCNotification) => void;

/** An HTTP answer whose body may be a stream (Middy's streamifyResponse writes it as it comes). */
type StreamedResponse = Omit<HttpResponse, "body"> & { body: string | PassThrough };

/**
 * The answer as SSE from the request's first notification on, or its JSON when it finishes with none.
 * Once the stream has started the reply is its last event; a failure then is a `-32603` event, its
 * cause told to `onFault` (before the stream starts, a failure is Middy's, as in createHandler).
 */
function streamedOrWhole(
  request: HttpRequest,
  config: Config,
  serve: (notify: Notify) => Promise<HttpResponse>,
  onFault: (error: unknown) => void,
): Promise<StreamedResponse> {
  return new Promise<StreamedResponse>((resolve, reject) => {
    let stream: PassThrough | undefined;
    let ended = false;
    let keepalive: NodeJS.Timeout | undefined;
    const notify: Notify = (notification) => {
      if (ended) return;
      if (stream === undefined) {
        stream = new PassThrough();
        keepalive = setInterval(() => stream?.write(": keepalive\n\n"), KEEPALIVE_MS);
        resolve({ statusCode: 200, headers: eventStreamHeaders(request, config), body: stream });
      }
      stream.write(sseEvent(JSON.stringify(notification)));
    };
    const finish = (last: string): void => {
      ended = true;
      clearInterval(keepalive);
      stream?.end(sseEvent(last));
    };
    serve(notify).then(
      (response) => (stream === undefined ? resolve(response) : finish(response.body)),
      (error: unknown) => {
        if (stream === undefined) return reject(error);
        onFault(error);
        finish(JSON.stringify(serverFault(null).message));
      },
    );
  });
}

/** One SSE `message` event carrying one JSON-RPC message (JSON text has no raw line breaks). */
function sseEvent(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/** The headers of an SSE answer: what the JSON answer would have had (CORS, the session), as a stream. */
function eventStreamHeaders(request: HttpRequest, config: Config): Record<string, string> {
  const origin = request.headers.origin;
  const sessionId = request.headers["mcp-session-id"];
  return {
    ...corsHeaders(origin, origin === undefined || isOriginAllowed(origin, config.allowedOrigins)),
    ...(sessionId === undefined || sessionId === "" ? {} : { "Mcp-Session-Id": sessionId }),
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
  };
}
