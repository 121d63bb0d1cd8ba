import type { RequestContext } from "../context.js";
import type { Decided, EdgeEvent, EdgeSettings } from "../http/middleware/index.js";
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
import { type Body, type Classification, classify, type Malformed } from "../protocol/classify.js";
import { ErrorCode, methodNamesIn, replyJson, SERVER_ERROR } from "../protocol/jsonrpc.js";
import type { SessionManager } from "../sessions/manager.js";
import type { StreamEventStore } from "../sessions/streamEvents.js";
import { type Answer, httpAnswer } from "./answer.js";
import { type HttpLimits, withinLimit } from "./ceiling.js";
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
 * what the edge decided of it (its CORS headers, its session id).
 */
export async function handleMcp(
  { request, decided }: EdgeEvent,
  options: McpRouteOptions,
  context: RequestContext,
): Promise<Answer<HttpResponse>> {
  const cors = decided.cors;
  if (request.method === "DELETE" && options.sessions) {
    return httpAnswer(await endSession(decided, options.sessions, context));
  }
  if (request.method === "GET" && options.sessions && options.resumption) {
    const resumed = await resumeStream(request, options.sessions, options.resumption, decided, context);
    if (resumed) return httpAnswer(resumed);
  }
  if (request.method !== "POST") {
    const allow = { ...cors, Allow: options.sessions ? ALLOWED_METHODS : "POST, OPTIONS" };
    return httpAnswer(jsonRpcErrorResponse(405, SERVER_ERROR, "Method not allowed", allow));
  }

  const body = parseBody(request.body);
  const payload = "json" in body ? body.json : undefined;
  const inbound = classify(body, request.headers);
  if (inbound.era === "modern") {
    // A 2026-07-28 client gets the spec's answers: PYTHON_COMPAT is for the Python Lambda's clients.
    const methods = "json" in body ? methodNamesIn(payload) : [];
    return { ...(await serveModern(inbound, options, cors, context)), methods, era: "modern" };
  }
  if (inbound.kind === "malformed")
    return httpAnswer(answerMalformed(inbound, options.pythonCompat, cors, options.limits));
  const response = await serve(payload, inbound, decided.sessionId, options, cors, context);
  return { body: response, status: response.statusCode, methods: methodNamesIn(payload), era: "legacy" };
}

function parseBody(text: string): Body {
  try {
    return { json: JSON.parse(text) };
  } catch (error) {
    return { notJson: error };
  }
}

type Modern = Extract<Classification, { era: "modern" }>;
type Legacy = Extract<Classification, { era: "legacy" }>;

/** A 2026-07-28 payload's answer, and what the log says of the request it served. */
async function serveModern(
  inbound: Modern,
  options: McpRouteOptions,
  cors: Record<string, string>,
  context: RequestContext,
): Promise<Omit<Answer<HttpResponse>, "methods">> {
  if (inbound.kind === "malformed") return httpAnswer(answerMalformed(inbound, false, cors, options.limits));
  if (inbound.kind === "notification")
    return { ...httpAnswer(emptyResponse(202, cors)), outcome: "accepted" };
  const outcome = await answerModern(inbound.request, options.modern, context);
  const response = toHttpResponse(outcome, false, cors, options.limits);
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
function answerMalformed(
  inbound: Malformed,
  pythonCompat: boolean,
  cors: Record<string, string>,
  limits: HttpLimits,
): HttpResponse {
  if (inbound.notJson && pythonCompat)
    return jsonResponse(400, { error: "Invalid JSON in request body" }, cors);
  if (inbound.era === "legacy" || inbound.notJson) return jsonResponse(inbound.status, inbound.reply, cors);
  const refused: Outcome = {
    kind: "single",
    reply: { message: inbound.reply },
    status: inbound.status,
    invalid: false,
  };
  return toHttpResponse(refused, false, cors, limits);
}

async function serve(
  payload: unknown,
  inbound: Legacy,
  sessionId: string | undefined,
  options: McpRouteOptions,
  cors: Record<string, string>,
  context: RequestContext,
): Promise<HttpResponse> {
  const sessions = options.sessions;
  const initialize = inbound.kind === "initialize" ? inbound.request : undefined;
  if (sessions && sessionId !== undefined) {
    if (!isWellFormedSessionId(sessionId)) return badSessionId(cors);
    if (initialize) {
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        "Bad Request: initialize must not carry an Mcp-Session-Id",
        cors,
      );
    }
    return whileStoreAnswers(cors, async () => {
      const session = await sessions.resume(sessionId, context);
      if (!session) return sessionNotFound(cors);
      if (options.resumption) await noteCancellations(payload, sessionId, options.resumption);
      const outcome = await dispatch(payload, { context, bridge: async () => session.bridge });
      await sessions.persist(session, context);
      const headers = { ...cors, [SESSION_HEADER]: sessionId };
      return toHttpResponse(outcome, options.pythonCompat, headers, options.limits);
    });
  }
  if (sessions && initialize) {
    return whileStoreAnswers(
      cors,
      async () => {
        const started = await sessions.initialize(completeInitialize(initialize), context);
        const headers = started.sessionId ? { ...cors, [SESSION_HEADER]: started.sessionId } : cors;
        return toHttpResponse(single(started.reply), options.pythonCompat, headers, options.limits);
      },
      initialize.id,
    );
  }
  if (sessions && options.sessionsRequired) {
    return sessionIdRequired(cors);
  }
  const outcome = await dispatchStateless(payload, { context, ...options });
  return toHttpResponse(outcome, options.pythonCompat, cors, options.limits);
}

async function endSession(
  { cors, sessionId }: Decided,
  sessions: SessionManager,
  context: RequestContext,
): Promise<HttpResponse> {
  if (sessionId === undefined) return sessionIdRequired(cors);
  if (!isWellFormedSessionId(sessionId)) return badSessionId(cors);
  return whileStoreAnswers(cors, async () =>
    (await sessions.delete(sessionId, context)) ? emptyResponse(204, cors) : sessionNotFound(cors),
  );
}

function toHttpResponse(
  outcome: Outcome,
  pythonCompat: boolean,
  cors: Record<string, string>,
  limits: HttpLimits,
): HttpResponse {
  const render = (fitting: Outcome) => renderOutcome(fitting, pythonCompat, cors);
  return withinLimit(outcome, render, limits.payloadBytes, limits.responseBytes);
}

function renderOutcome(outcome: Outcome, pythonCompat: boolean, cors: Record<string, string>): HttpResponse {
  switch (outcome.kind) {
    case "accepted":
      return pythonCompat ? jsonResponse(200, PYTHON_NOTIFICATION_REPLY, cors) : emptyResponse(202, cors);
    case "batch":
      return serializedJsonResponse(
        statusOf(outcome),
        `[${outcome.replies.map((reply) => replyJson(reply.message)).join(",")}]`,
        cors,
      );
    case "single":
      return serializedJsonResponse(statusOf(outcome), replyJson(outcome.reply.message), cors);
  }
}
