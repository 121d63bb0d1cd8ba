import type { HttpRequest } from "../http/event.js";
import type { Decided } from "../http/middleware/edge.js";
import { isModernVersion } from "../protocol/versions.js";
import type { ReplyTo, StreamEventStore } from "../sessions/streamEvents.js";
import { isPlainObject } from "../util/json.js";

/** How often a kept stream looks for its client's cancellation, noted by another invocation. */
export const CANCEL_POLL_MS = 1_000;

/** Where a session's stream keeps its events, so that its client can resume it (routes/resume.ts). */
export interface Keeping {
  store: StreamEventStore;
  sessionId: string;
  /** The id of the request the stream answers (one JSON-RPC request), to look for its cancellation. */
  requestId: string | number | undefined;
  /** Whom the stream's reply answers (a batch's requests too), kept beside each event. */
  replyTo: ReplyTo;
  /** When the front door received the request: a cancellation noted before is not of this request. */
  receivedAt: number;
  /** When this invocation ends (epoch ms), kept beside each event: it writes nothing after it. */
  writerDeadline: number;
  /** Told when an event cannot be kept: the stream goes on, without ids from then on. */
  onFault(error: unknown): void;
}

/**
 * Where a POST's stream keeps its events: in a 2025-revision session where events are kept
 * (SESSION_TABLE). The route has checked the session before any event is made; 2026-07-28 has no
 * sessions and no resumption. `sessionId` and `body`: the session header and the body as the edge read
 * them (src/http/middleware/). `writerDeadline`: when the invocation answering it ends.
 */
export function keepingFor(
  request: HttpRequest,
  { sessionId, body }: Pick<Decided, "sessionId" | "body">,
  store: StreamEventStore | undefined,
  fault: (error: unknown, where: string) => void,
  writerDeadline: number,
): Keeping | undefined {
  const version = request.headers["mcp-protocol-version"];
  if (store === undefined || sessionId === undefined) return undefined;
  if (version !== undefined && isModernVersion(version)) return undefined;
  const onFault = (error: unknown) => fault(error, "keeping a stream event");
  const replyTo = replyToOf(body);
  const requestId = typeof replyTo === "string" || typeof replyTo === "number" ? replyTo : undefined;
  return { store, sessionId, requestId, replyTo, receivedAt: request.receivedAt, writerDeadline, onFault };
}

/** Whom a POST's reply answers, from its body as the edge parsed it (see replyToIn). */
export function replyToOf(body: Decided["body"]): ReplyTo {
  return body !== undefined && "json" in body ? replyToIn(body.json) : null;
}

/** The id of the one JSON-RPC request a payload holds, the ids of a batch's requests; null for anything else. */
function replyToIn(message: unknown): ReplyTo {
  if (!Array.isArray(message)) return requestIdOf(message) ?? null;
  return message.flatMap((entry) => {
    const id = requestIdOf(entry);
    return id === undefined ? [] : [id];
  });
}

/** A request's id: a message with a method and a string or number id (a notification has none). */
function requestIdOf(message: unknown): string | number | undefined {
  if (!isPlainObject(message) || typeof message.method !== "string") return undefined;
  const id = message.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * Aborts when the session's client cancels the request: its `notifications/cancelled` reaches
 * whichever invocation the front door picks, which notes it in the store (routes/resume.ts); this one
 * looks every CANCEL_POLL_MS while it streams, counting only what was noted since the request arrived.
 */
export function watchCancellation(
  keeping: Keeping,
  requestId: string | number,
): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const look = async (): Promise<void> => {
    try {
      if (await keeping.store.isCancelled(keeping.sessionId, requestId, keeping.receivedAt)) {
        controller.abort(new DOMException("the client cancelled the request", "AbortError"));
        return;
      }
    } catch {
      // The store did not answer: look again next time.
    }
    if (timer !== undefined) timer = setTimeout(look, CANCEL_POLL_MS);
  };
  timer = setTimeout(look, CANCEL_POLL_MS);
  return {
    signal: controller.signal,
    stop: () => {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
