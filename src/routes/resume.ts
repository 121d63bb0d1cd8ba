import { setTimeout as sleep } from "node:timers/promises";
import type { RequestContext } from "../context.js";
import { WRITER_GRACE_MS } from "../deadline.js";
import type { HttpRequest } from "../http/event.js";
import type { Decided } from "../http/middleware/edge.js";
import { isWellFormedSessionId } from "../http/middleware/sessionHeader.js";
import { type HttpResponse, jsonRpcErrorResponse } from "../http/responses.js";
import { acceptsEventStream, SSE_HEADERS, sseEvent } from "../http/sse.js";
import { ErrorCode, errorsTo, type JSONRPCErrorResponse } from "../protocol/jsonrpc.js";
import type { SessionManager } from "../sessions/manager.js";
import {
  eventId,
  parseEventId,
  type ReplyTo,
  type StoredEvent,
  type StreamEventStore,
} from "../sessions/streamEvents.js";
import { isPlainObject } from "../util/json.js";
import {
  badSessionId,
  SESSION_HEADER,
  sessionIdRequired,
  sessionNotFound,
  whileStoreAnswers,
} from "./sessionAnswers.js";

/** How often a resumed stream looks for the events its POST's invocation is still writing. */
export const FOLLOW_POLL_MS = 500;
/** Events read per store call (BatchGetItem takes 100 keys). */
const EVENTS_PER_READ = 25;

export { WRITER_GRACE_MS };
/** What a resumed stream answers in place of a reply that its writer, now ended, never kept. */
export const WRITER_ENDED =
  "No reply: the invocation running this request ended before it answered (its time ran out, or it failed); send the request again";

/**
 * `GET /mcp` with `Last-Event-ID` (2025 revisions), where stream events are kept (a streaming front
 * door with SESSION_TABLE): the events a session's client missed when its stream broke, then the rest
 * of that stream as its POST's invocation writes them, up to the reply, which ends it. Only the
 * session that made a stream may resume it: an id of another session's stream is answered as an
 * unknown one, 400, so nobody learns that it exists. Without `Last-Event-ID` a GET asks for a stream of
 * the server's own requests, which this server never makes: 405, as everywhere else.
 */
export async function resumeStream(
  request: HttpRequest,
  sessions: SessionManager,
  store: StreamEventStore,
  { sessionId }: Decided,
  context: RequestContext,
): Promise<HttpResponse | undefined> {
  const lastEventId = request.headers["last-event-id"];
  if (lastEventId === undefined || lastEventId === "") return undefined;
  if (!acceptsEventStream(request.headers)) {
    return jsonRpcErrorResponse(
      406,
      ErrorCode.InvalidRequest,
      "Not Acceptable: a resumed stream is text/event-stream; send Accept: text/event-stream",
      {},
    );
  }
  if (sessionId === undefined) return sessionIdRequired();
  if (!isWellFormedSessionId(sessionId)) return badSessionId();
  return whileStoreAnswers(async () => {
    if (!(await sessions.isOpen(sessionId, context))) return sessionNotFound();
    const at = parseEventId(lastEventId);
    const [last] = at === undefined ? [] : await store.from(at.streamId, at.seq, 1);
    if (at === undefined || last === undefined || last.sessionId !== sessionId) {
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        "Bad Request: Last-Event-ID names no event of this session's streams (unknown, expired, or not this session's): send the request again",
        {},
      );
    }
    return {
      statusCode: 200,
      headers: { [SESSION_HEADER]: sessionId, ...SSE_HEADERS },
      body: "",
      events: last.final ? noEvents() : follow(store, last, context.deadlineAt),
    };
  });
}

/**
 * The stream's events after `last` as SSE frames, waiting for those not written yet, until its reply
 * (the last event) or `until` (epoch ms): then the client, which has every id so far, resumes again.
 * Once the writer has ended (its deadline and WRITER_GRACE_MS passed) with no reply kept, none will
 * come: the stream ends with an error to the request's id instead (no SSE id: nothing is kept for it).
 */
async function* follow(store: StreamEventStore, last: StoredEvent, until: number) {
  const { streamId, writerDeadline, replyTo } = last;
  const writerGone = writerDeadline + WRITER_GRACE_MS;
  let next = last.seq + 1;
  for (;;) {
    const events = await store.from(streamId, next, EVENTS_PER_READ);
    for (const event of events) {
      yield sseEvent(event.data, eventId(streamId, event.seq));
      if (event.final) return;
    }
    next += events.length;
    if (events.length === EVENTS_PER_READ) continue;
    // Read after the writer's end, and still no reply: there will be none.
    const now = Date.now();
    if (now >= writerGone) {
      yield sseEvent(JSON.stringify(writerEnded(replyTo)));
      return;
    }
    if (now >= until) return;
    await sleep(Math.min(FOLLOW_POLL_MS, Math.min(until, writerGone) - now));
  }
}

/** The reply a writer that ended without one owed: an error to each request it answers. */
function writerEnded(replyTo: ReplyTo): JSONRPCErrorResponse | JSONRPCErrorResponse[] {
  return errorsTo(replyTo, ErrorCode.InternalError, WRITER_ENDED);
}

async function* noEvents(): AsyncGenerator<string> {}

/**
 * Notes each `notifications/cancelled` in a session's payload where every container can see it: the
 * request it cancels may be running in another invocation, which looks for it (src/lambda/streaming.ts).
 * Best effort: the container's own bridge still cancels what it runs, whatever the store does.
 */
export async function noteCancellations(
  payload: unknown,
  sessionId: string,
  store: StreamEventStore,
): Promise<void> {
  const messages = Array.isArray(payload) ? payload : [payload];
  const cancelled = messages.flatMap((message) => {
    if (!isPlainObject(message) || message.method !== "notifications/cancelled") return [];
    const requestId = isPlainObject(message.params) ? message.params.requestId : undefined;
    return typeof requestId === "string" || typeof requestId === "number" ? [requestId] : [];
  });
  await Promise.all(cancelled.map((requestId) => store.cancel(sessionId, requestId).catch(() => undefined)));
}
