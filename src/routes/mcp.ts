import type { ReplySink, RequestContext } from "../context.js";
import type { Decided, EdgeEvent, EdgeSettings } from "../http/middleware/index.js";
import { parseBody } from "../http/middleware/jsonBody.js";
import { isWellFormedSessionId } from "../http/middleware/sessionHeader.js";
import {
  ALLOWED_METHODS,
  emptyResponse,
  type HttpResponse,
  jsonResponse,
  jsonRpcErrorResponse,
  serializedJsonResponse,
} from "../http/responses.js";
import type { Bridge } from "../mcp/bridge/bridge.js";
import {
  completeInitialize,
  dispatch,
  dispatchStateless,
  type Outcome,
  single,
  statusOf,
} from "../mcp/bridge/dispatch.js";
import { type Classification, classify, type Malformed } from "../protocol/classify.js";
import { ErrorCode, methodNamesIn, replyJson, SERVER_ERROR } from "../protocol/jsonrpc.js";
import type { SessionManager } from "../sessions/manager.js";
import type { StreamEventStore } from "../sessions/streamEvents.js";
import { type Answer, httpAnswer } from "./answer.js";
import { type HttpLimits, type RenderedReply, withinLimit } from "./ceiling.js";
import { answerModern, type ModernOptions } from "./modern.js";
import { noteCancellations, resumeStream } from "./resume.js";
import {
  badSessionId,
  SESSION_HEADER,
  sessionIdRequired,
  sessionNotFound,
  whileStoreAnswers,
} from "./sessionAnswers.js";

export interface McpRouteOptions extends EdgeSettings {
  pythonCompat: boolean;
  /** A bridge to a fresh MCP server, for one request only. */
  openBridge: () => Promise<Bridge>;
  /** The bridge to this container's shared server, for requests that change no MCP state. */
  sharedBridge: () => Promise<Bridge>;
  /** Undefined when sessions are off. */
  sessions: SessionManager | undefined;
  /** SESSIONS=required: a request without a session id (other than initialize) is refused. */
  sessionsRequired: boolean;
  /** 2026-07-28 requests: a fresh server each, with the spec's behaviour whatever PYTHON_COMPAT says. */
  modern: ModernOptions;
  /** How big an answer may be: buffered, or streamed by a streaming front door (routes/ceiling.ts). */
  limits: HttpLimits;
  /**
   * Where a session's stream events are kept, so that its client can resume a broken stream (GET with
   * Last-Event-ID): a streaming front door with SESSION_TABLE only; undefined elsewhere.
   */
  resumption?: StreamEventStore | undefined;
}

/** What the Python Lambda answered where nothing was to be answered. */
export const PYTHON_NOTIFICATION_REPLY = { jsonrpc: "2.0" };

/**
 * `/mcp` for a request that passed the edge (src/http/middleware/: its refusals, its preflight), with
 * what the edge decided of it (its session id, its parsed body). The edge adds the CORS headers to
 * every answer given here (src/http/middleware/cors.ts). `stream`: where a streamed answer's reply
 * goes once a notification has opened its stream (src/lambda/streaming.ts); the HTTP response is
 * returned all the same, for the request line and for an answer whose stream never opened.
 */
export async function handleMcp(
  { request, decided }: EdgeEvent,
  options: McpRouteOptions,
  context: RequestContext,
  stream?: ReplySink,
): Promise<Answer<HttpResponse>> {
  if (request.method === "DELETE" && options.sessions) {
    return httpAnswer(await endSession(decided, options.sessions, context));
  }
  if (request.method === "GET" && options.sessions && options.resumption) {
    const resumed = await resumeStream(request, options.sessions, options.resumption, decided, context);
    if (resumed) return httpAnswer(resumed);
  }
  if (request.method !== "POST") {
    const allow = { Allow: options.sessions ? ALLOWED_METHODS : "POST, OPTIONS" };
    return httpAnswer(jsonRpcErrorResponse(405, SERVER_ERROR, "Method not allowed", allow));
  }

  // Parsed by the edge (src/http/middleware/jsonBody.ts); here only for a call that did not pass it.
  const body = decided.body ?? parseBody(request.body);
  const payload = "json" in body ? body.json : undefined;
  const inbound = classify(body, request.headers);
  if (inbound.era === "modern") {
    // A 2026-07-28 client gets the spec's answers: PYTHON_COMPAT is for the Python Lambda's clients.
    const methods = "json" in body ? methodNamesIn(payload) : [];
    return { ...(await serveModern(inbound, options, context, stream)), methods, era: "modern" };
  }
  if (inbound.kind === "malformed")
    return httpAnswer(answerMalformed(inbound, options.pythonCompat, options.limits));
  const response = await serve(payload, inbound, decided.sessionId, options, context, stream);
  return { body: response, status: response.statusCode, methods: methodNamesIn(payload), era: "legacy" };
}

type Modern = Extract<Classification, { era: "modern" }>;
type Legacy = Extract<Classification, { era: "legacy" }>;

/** A 2026-07-28 payload's answer, and what the log says of the request it served. */
async function serveModern(
  inbound: Modern,
  options: McpRouteOptions,
  context: RequestContext,
  stream: ReplySink | undefined,
): Promise<Omit<Answer<HttpResponse>, "methods">> {
  if (inbound.kind === "malformed") return httpAnswer(answerMalformed(inbound, false, options.limits));
  if (inbound.kind === "notification") return { ...httpAnswer(emptyResponse(202, {})), outcome: "accepted" };
  const outcome = await answerModern(inbound.request, options.modern, context);
  const response = toHttpResponse(outcome, false, {}, options.limits, stream);
  return {
    body: response,
    status: response.statusCode,
    outcome: outcome.kind,
    traceId: inbound.envelope.traceId,
    client: inbound.envelope.clientInfo,
  };
}

/**
 * The error `classify` found, as this route answers it: a body that is not JSON in the Python Lambda's
 * form under PYTHON_COMPAT (legacy only); a 2026-07-28 message's error cut to fit like any reply.
 */
function answerMalformed(inbound: Malformed, pythonCompat: boolean, limits: HttpLimits): HttpResponse {
  if (inbound.notJson && pythonCompat)
    return jsonResponse(400, { error: "Invalid JSON in request body" }, {});
  if (inbound.era === "legacy" || inbound.notJson) return jsonResponse(inbound.status, inbound.reply, {});
  const refused: Outcome = {
    kind: "single",
    reply: { message: inbound.reply },
    status: inbound.status,
    invalid: false,
  };
  return toHttpResponse(refused, false, {}, limits);
}

async function serve(
  payload: unknown,
  inbound: Legacy,
  sessionId: string | undefined,
  options: McpRouteOptions,
  context: RequestContext,
  stream: ReplySink | undefined,
): Promise<HttpResponse> {
  const sessions = options.sessions;
  const initialize = inbound.kind === "initialize" ? inbound.request : undefined;
  if (sessions && sessionId !== undefined) {
    if (!isWellFormedSessionId(sessionId)) return badSessionId();
    if (initialize) {
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        "Bad Request: initialize must not carry an Mcp-Session-Id",
        {},
      );
    }
    return whileStoreAnswers(
      async () => {
        const session = await sessions.resume(sessionId, context);
        if (!session) return sessionNotFound();
        if (options.resumption) await noteCancellations(payload, sessionId, options.resumption);
        const outcome = await dispatch(payload, { context, bridge: async () => session.bridge });
        await sessions.persist(session, context);
        const headers = { [SESSION_HEADER]: sessionId };
        return toHttpResponse(outcome, options.pythonCompat, headers, options.limits, stream);
      },
      null,
      stream,
    );
  }
  if (sessions && initialize) {
    return whileStoreAnswers(
      async () => {
        const started = await sessions.initialize(completeInitialize(initialize), context);
        const headers: Record<string, string> = started.sessionId
          ? { [SESSION_HEADER]: started.sessionId }
          : {};
        return toHttpResponse(single(started.reply), options.pythonCompat, headers, options.limits, stream);
      },
      initialize.id,
      stream,
    );
  }
  if (sessions && options.sessionsRequired) {
    return sessionIdRequired();
  }
  const outcome = await dispatchStateless(payload, { context, ...options });
  return toHttpResponse(outcome, options.pythonCompat, {}, options.limits, stream);
}

async function endSession(
  { sessionId }: Decided,
  sessions: SessionManager,
  context: RequestContext,
): Promise<HttpResponse> {
  if (sessionId === undefined) return sessionIdRequired();
  if (!isWellFormedSessionId(sessionId)) return badSessionId();
  return whileStoreAnswers(async () =>
    (await sessions.delete(sessionId, context)) ? emptyResponse(204, {}) : sessionNotFound(),
  );
}

/**
 * The outcome's answer: its reply cut to the ceiling (routes/ceiling.ts) as JSON text, which goes to
 * the stream when one is open and is the body of the HTTP response either way.
 */
function toHttpResponse(
  outcome: Outcome,
  pythonCompat: boolean,
  headers: Record<string, string>,
  limits: HttpLimits,
  stream?: ReplySink,
): HttpResponse {
  if (outcome.kind === "accepted") {
    return pythonCompat ? jsonResponse(200, PYTHON_NOTIFICATION_REPLY, headers) : emptyResponse(202, headers);
  }
  const bytesOf = (reply: RenderedReply) => limits.payloadBytes(reply, headers);
  const reply = withinLimit(outcome, renderReply, bytesOf, limits.responseBytes);
  stream?.reply(reply.json);
  return serializedJsonResponse(reply.status, reply.json, headers);
}

/** A reply (a batch's replies) as JSON text, with the status its HTTP response has. */
function renderReply(outcome: Outcome): RenderedReply {
  const json =
    outcome.kind === "batch"
      ? `[${outcome.replies.map((reply) => replyJson(reply.message)).join(",")}]`
      : outcome.kind === "single"
        ? replyJson(outcome.reply.message)
        : "";
  return { status: statusOf(outcome), json };
}
