import type { HttpResponse } from "../http/responses.js";
import type { Outcome } from "../mcp/bridge/dispatch.js";
import type { Era } from "../protocol/classify.js";

/**
 * What a request became, whichever route served it: what goes back, and what its request line, its
 * metrics and its trace say of it.
 */
export interface Answer<Body> {
  /** What goes back: the HTTP response, or a direct invocation's JSON-RPC result itself. */
  body: Body;
  /** Its HTTP status; for a direct invocation, the status the same answer would have had over HTTP. */
  status: number;
  /** The JSON-RPC methods its payload carried ("-" for an entry without one); none when it had no body read. */
  methods: readonly string[];
  /** What its payload became (one reply, a batch, or nothing to answer), once it was read. */
  outcome?: Outcome["kind"];
  /** The protocol era that served it, once its body was read: 2026-07-28 ("modern") or earlier. */
  era?: Era;
  /** The trace id of the `traceparent` a 2026-07-28 request carried in `_meta`. */
  traceId?: string;
  /** The client a 2026-07-28 request named in `_meta` (name and version, as it said). */
  client?: { name: string; version: string };
}

/** An HTTP response that served no JSON-RPC (a refusal, a preflight, another route) as an answer. */
export function httpAnswer(response: HttpResponse): Answer<HttpResponse> {
  return { body: response, status: response.statusCode, methods: [] };
}
