import type { HttpRequest } from "../event.js";
import type { EdgeMiddleware } from "./edge.js";

/** The session header's name as answers write it (requests' header names are lower-case). */
export const SESSION_HEADER = "Mcp-Session-Id";

/** The Mcp-Session-Id the client sent; undefined when absent or empty (no session named). */
export function sessionIdOf(request: HttpRequest): string | undefined {
  const value = request.headers["mcp-session-id"];
  return value === undefined || value === "" ? undefined : value;
}

/** The spec's form of a session id: visible ASCII only; and a length no honest client exceeds. */
export function isWellFormedSessionId(id: string): boolean {
  return id.length > 0 && id.length <= 128 && /^[\x21-\x7E]+$/.test(id);
}

/**
 * Reads the session header once, for the route, the stream's keeping and its event-stream headers. It
 * refuses nothing: whether a session id is required, or well formed, is answered after the body is
 * read (a malformed body is answered first), by the route that knows whether sessions are on.
 */
export const sessionHeader: EdgeMiddleware = {
  name: "session-header",
  before: ({ event }) => {
    event.decided.sessionId = sessionIdOf(event.request);
  },
};
