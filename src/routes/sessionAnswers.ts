import type { ReplySink } from "../context.js";
import { type HttpResponse, jsonResponse, jsonRpcErrorResponse } from "../http/responses.js";
import {
  ErrorCode,
  errorReply,
  type RequestId,
  SERVER_ERROR,
  SESSION_NOT_FOUND,
} from "../protocol/jsonrpc.js";
import { SessionDataError, SessionStoreError } from "../sessions/store.js";

// The answers of the session rules, shared by the routes that take a session (routes/mcp.ts,
// routes/resume.ts). Their CORS headers are added by the edge (src/http/middleware/cors.ts).

export { SESSION_HEADER } from "../http/middleware/sessionHeader.js";

export function badSessionId(): HttpResponse {
  return jsonRpcErrorResponse(
    400,
    ErrorCode.InvalidRequest,
    "Bad Request: Mcp-Session-Id must be 1 to 128 visible ASCII characters",
    {},
  );
}

export function sessionIdRequired(): HttpResponse {
  return jsonRpcErrorResponse(
    400,
    ErrorCode.InvalidRequest,
    "Bad Request: Mcp-Session-Id header is required",
    {},
  );
}

export function sessionNotFound(): HttpResponse {
  return jsonRpcErrorResponse(404, SESSION_NOT_FOUND, "Session not found", {});
}

/** What a failing session store is answered with: the session may well exist, so try again. */
const STORE_UNAVAILABLE = "Session store unavailable; retry shortly";

/**
 * A failing session store is 503 with Retry-After, never 404: the session may well exist. Data the store
 * cannot hold (too large, too deep, inexact numbers) is the client's error: 400, `-32602` with what is
 * wrong and the limit, answered to `requestId`. Once a notification has opened the request's stream
 * (`stream`), its status 200 has gone out: the failure ends the stream as a JSON-RPC error to the
 * request instead (`-32603` for the store), and the HTTP answer only tells the request line what it was.
 */
export async function whileStoreAnswers(
  serveWithStore: () => Promise<HttpResponse>,
  requestId: RequestId | null = null,
  stream?: ReplySink,
): Promise<HttpResponse> {
  try {
    return await serveWithStore();
  } catch (error) {
    if (error instanceof SessionDataError) {
      stream?.fail(ErrorCode.InvalidParams, error.message);
      return jsonResponse(400, errorReply(requestId, ErrorCode.InvalidParams, error.message), {});
    }
    if (!(error instanceof SessionStoreError)) throw error;
    stream?.fail(ErrorCode.InternalError, STORE_UNAVAILABLE);
    return jsonRpcErrorResponse(503, SERVER_ERROR, STORE_UNAVAILABLE, { "Retry-After": "1" });
  }
}
