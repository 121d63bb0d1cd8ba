import type { Writable } from "node:stream";
import type { Context } from "aws-lambda";
import type { Config } from "../config/index.js";
import { invocationEndsAt } from "../deadline.js";
import { type HttpRequest, normalizeEvent } from "../http/event.js";
import type { Decided } from "../http/middleware/edge.js";
import { SESSION_HEADER } from "../http/middleware/sessionHeader.js";
import type { HttpResponse } from "../http/responses.js";
import { routeOf } from "../http/route.js";
import { acceptsEventStream, SSE_HEADERS } from "../http/sse.js";
import type { StreamEventStore } from "../sessions/streamEvents.js";
import { routerFor, type SinkFor } from "./app.js";
import { buildContainer, type Dependencies } from "./container.js";
import { failedRequestAnswer } from "./lastResort.js";
import { ResponseOut } from "./responseStream.js";
import { StreamedAnswer } from "./streamedAnswer.js";
import { keepingFor, replyToOf, watchCancellation } from "./streamKeeping.js";

export { KEEPALIVE_MS } from "./responseStream.js";

type Route = ReturnType<typeof routerFor>;
type Fault = (error: unknown, where: string) => void;

/**
 * The Lambda handler for a streaming front door (a Function URL in RESPONSE_STREAM mode, a REST API
 * whose integration streams), through the Node runtime's `awslambda.streamifyResponse`. Every request
 * is answered as createHandler answers it, except:
 *
 * - a POST to /mcp that accepts `text/event-stream` and whose tool call tells its progress: from its
 *   first notification it is answered as SSE, each notification an event as it happens, the reply
 *   last. In a session with SESSION_TABLE each event is kept (with its id) before it is sent, so that
 *   a client whose stream broke resumes it with `GET /mcp` + `Last-Event-ID` (routes/resume.ts);
 * - such a GET, answered with the events the client missed and then the rest of the stream.
 *
 * A request with nothing to stream gets exactly today's JSON. The handler writes its own response
 * (not through Middy's streamifyResponse, whose handler ends as soon as its stream breaks) so that its
 * invocation lasts until the reply is kept whatever becomes of the stream; a stream that is not kept
 * stops its request when the runtime reports the stream broken (README, "When the client goes away").
 *
 * @example
 * ```ts
 * export const handler = createStreamingHandler(configFromEnvironment());
 * ```
 */
export function createStreamingHandler(config: Config, dependencies: Dependencies = {}) {
  const container = buildContainer(config, dependencies, true);
  const route = routerFor(container);
  const failed = failedRequestAnswer(container);
  const store = container.mcpOptions.resumption;
  return awslambda.streamifyResponse(async (event: unknown, stream: Writable, lambda: Context) => {
    const out = new ResponseOut(stream);
    const invocation = { lambda, correlationId: lambda?.awsRequestId };
    const fault: Fault = (error, where) => container.reportFault(error, where, invocation);
    const endsAt = invocationEndsAt(lambda);
    try {
      await answer(event, lambda, out, route, { fault, store, endsAt });
    } catch (error) {
      // Nothing sent yet: the answer createHandler gives a failure. Once sent, the status stands.
      if (out.opened) fault(error, "streamed answer");
      const response = failed(event, lambda, error);
      if (out.opened) out.end();
      else if (isHttpResponse(response)) out.whole(response);
      else out.raw(JSON.stringify(response));
    }
  });
}

/** What a streamed answer needs besides its request: where faults go, and where its events are kept. */
interface Streaming {
  fault: Fault;
  store: StreamEventStore | undefined;
  /** When the invocation answering it ends (how long a kept stream's writer may still write). */
  endsAt: number;
}

async function answer(
  event: unknown,
  lambda: Context,
  out: ResponseOut,
  route: Route,
  streaming: Streaming,
): Promise<void> {
  const request = normalizeEvent(event);
  // A direct invocation's reply is JSON-RPC itself: streamed as its JSON text.
  if (request.kind !== "http")
    return out.raw(JSON.stringify((await route(event, lambda, undefined, request)) ?? null));
  if (!acceptsEvents(request)) {
    const response = (await route(event, lambda, undefined, request)) as HttpResponse;
    return response.events === undefined ? out.whole(response) : follow(response, out, streaming.fault);
  }
  const serve = (sinkFor: SinkFor) => route(event, lambda, sinkFor, request) as Promise<HttpResponse>;
  return streamedOrWhole(request, out, serve, streaming);
}

/** A POST to /mcp whose client takes an SSE answer (MCP clients accept both JSON and SSE). */
function acceptsEvents(request: HttpRequest): boolean {
  return request.method === "POST" && routeOf(request.path) === "mcp" && acceptsEventStream(request.headers);
}

/**
 * The answer as SSE from the request's first notification on, or its JSON when it finishes with none.
 * Once the stream has started, the route hands its reply (or a failure in its place) to the sink, and
 * it is the last event; a failure the route does not answer is a `-32603` event, its cause told as a
 * fault. A stream that is not kept stops its request when the front door closes it (its client cannot
 * get the reply); a kept one runs to its reply, which its client can resume. The sink is made once the
 * request has passed the edge, from what the edge decided of it.
 */
async function streamedOrWhole(
  request: HttpRequest,
  out: ResponseOut,
  serve: (sinkFor: SinkFor) => Promise<HttpResponse>,
  { fault, store, endsAt }: Streaming,
): Promise<void> {
  let answer: StreamedAnswer | undefined;
  let watch: ReturnType<typeof watchCancellation> | undefined;
  const sinkFor: SinkFor = (decided) => {
    const keeping = keepingFor(request, decided, store, fault, endsAt);
    watch = keeping?.requestId === undefined ? undefined : watchCancellation(keeping, keeping.requestId);
    // A kept stream runs to its reply, which its client can resume, unless the client cancels it.
    const gone = watch?.signal ?? (keeping === undefined ? out.gone : undefined);
    const headers = eventStreamHeaders(decided);
    answer = new StreamedAnswer(out, headers, keeping, replyToOf(decided.body), gone);
    return answer;
  };
  let response: HttpResponse;
  try {
    response = await serve(sinkFor);
  } catch (error) {
    watch?.stop();
    if (answer?.opened !== true) throw error;
    fault(error, "streamed answer");
    return answer.end();
  }
  watch?.stop();
  if (answer?.opened !== true) return out.whole(response);
  if (!answer.replied) fault(new Error("the route answered an open stream with no reply"), "streamed answer");
  return answer.end();
}

/** A resumed stream (routes/resume.ts): its events as they come, then its end. */
async function follow(response: HttpResponse, out: ResponseOut, fault: Fault): Promise<void> {
  out.open(response.statusCode, response.headers, true);
  try {
    for await (const frame of response.events ?? []) {
      if (out.gone.aborted) break;
      out.write(frame);
    }
  } catch (error) {
    // The store failed while following: the client resumes again from the last id it has.
    fault(error, "resumed stream");
  }
  out.end();
}

/** The headers of an SSE answer: what the JSON answer would have had (CORS, the session), as a stream. */
function eventStreamHeaders({ cors, sessionId }: Decided): Record<string, string> {
  return { ...cors, ...(sessionId === undefined ? {} : { [SESSION_HEADER]: sessionId }), ...SSE_HEADERS };
}

function isHttpResponse(value: unknown): value is HttpResponse {
  return typeof value === "object" && value !== null && "statusCode" in value;
}
