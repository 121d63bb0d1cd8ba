import { serializedJsonResponse } from "../http/responses.js";
import type { Outcome } from "../mcp/bridge/dispatch.js";
import { ErrorCode, errorReply, type Reply } from "../protocol/jsonrpc.js";
import {
  DIRECT_REPLY_BYTES,
  HTTP_ENVELOPE_BYTES,
  HTTP_REPLY_BYTES,
  RESPONSE_LIMIT_BYTES,
  STREAMED_REPLY_BYTES,
  STREAMED_RESPONSE_LIMIT_BYTES,
} from "../results/budget.js";

// The chain of limits, from Lambda's down to one result's budget, is src/results/budget.ts.
export { DIRECT_REPLY_BYTES, HTTP_REPLY_BYTES, RESPONSE_LIMIT_BYTES, STREAMED_RESPONSE_LIMIT_BYTES };

/**
 * A reply as the route answers it: its JSON text (one reply, or a batch's array) and the HTTP status it
 * has as a whole response. The ceiling cuts this text; the buffered answer wraps it as its body, a
 * streamed one sends it as its last SSE event, so both carry the same cut.
 */
export interface RenderedReply {
  readonly status: number;
  readonly json: string;
}

/** How big an HTTP answer may be, as one front door carries it. */
export interface HttpLimits {
  /** The most bytes of one response. */
  readonly responseBytes: number;
  /** What one reply may take as a whole response body. */
  readonly replyBytes: number;
  /**
   * Bytes of the response that carries this reply (with the route's `headers`) through the front door,
   * or a bound when that is enough to tell.
   */
  payloadBytes(reply: RenderedReply, headers: Record<string, string>): number;
}

/** A buffered answer: one Lambda response payload (HTTP API, REST API, buffered Function URL). */
export const BUFFERED_LIMITS: HttpLimits = {
  responseBytes: RESPONSE_LIMIT_BYTES,
  replyBytes: HTTP_REPLY_BYTES,
  payloadBytes: httpPayloadBytes,
};

/** A streamed answer: the reply's text as it is, after the headers' prelude. */
export const STREAMED_LIMITS: HttpLimits = {
  responseBytes: STREAMED_RESPONSE_LIMIT_BYTES,
  replyBytes: STREAMED_REPLY_BYTES,
  // At most 3 bytes of UTF-8 per UTF-16 unit: a bound that costs nothing, as in httpPayloadBytes.
  payloadBytes: ({ json }) => 3 * json.length + HTTP_ENVELOPE_BYTES,
};

/**
 * Bytes of the payload Lambda sends for the HTTP response whose body is this reply, or a bound when that
 * is enough to tell.
 */
export function httpPayloadBytes({ status, json }: RenderedReply, headers: Record<string, string>): number {
  // A JSON body has no raw control characters, so escaping it again takes each ASCII character to at
  // most 2 bytes and leaves the others at their UTF-8 size, at most 3 bytes per UTF-16 unit. This bound
  // costs nothing, where measuring a body's UTF-8 length walks every character of it.
  const cheap = 3 * json.length + HTTP_ENVELOPE_BYTES;
  if (cheap <= RESPONSE_LIMIT_BYTES) return cheap;
  const bound = 2 * Buffer.byteLength(json, "utf8") + HTTP_ENVELOPE_BYTES;
  if (bound <= RESPONSE_LIMIT_BYTES) return bound;
  return Buffer.byteLength(JSON.stringify(serializedJsonResponse(status, json, headers)), "utf8");
}

/**
 * Bytes of a direct invocation's result (the outcome's replies) as Lambda serializes it, or a bound when
 * that is enough to tell: a tool result's reply is bounded when it is made, and serializing it again to
 * measure it would cost as much as Lambda's own serialization.
 */
export function directPayloadBytes(result: unknown, outcome: Outcome): number {
  const replies =
    outcome.kind === "batch" ? outcome.replies : outcome.kind === "single" ? [outcome.reply] : [];
  let bound = 0;
  for (const { message, bound: known } of replies) {
    bound += known === undefined ? serializedBytes(message) : known + serializedBytes(message.id);
  }
  return bound <= RESPONSE_LIMIT_BYTES ? bound : serializedBytes(result);
}

function serializedBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, "utf8");
}

/**
 * The outcome with its largest replies replaced by a short error, as few as needed for `render` to fit
 * `limitBytes` (RESPONSE_LIMIT_BYTES unless the answer is streamed). Tool results are cut to their share before this point; what remains are
 * replies that carry a caller's own huge values back (ids, names in error messages). A replaced single
 * reply is answered 200, or still 400 when its payload was no JSON-RPC message at all.
 */
export function withinLimit<R>(
  outcome: Outcome,
  render: (outcome: Outcome) => R,
  bytesOf: (rendered: R, outcome: Outcome) => number,
  limitBytes: number = RESPONSE_LIMIT_BYTES,
): R {
  let rendered = render(outcome);
  if (outcome.kind === "accepted" || bytesOf(rendered, outcome) <= limitBytes) return rendered;
  const replies = outcome.kind === "batch" ? [...outcome.replies] : [outcome.reply];
  const bySize = replies
    .map(({ message }, index) => ({ index, bytes: serializedBytes(message) }))
    .sort((a, b) => b.bytes - a.bytes);
  for (const { index, bytes } of bySize) {
    replies[index] = tooLarge(replies[index] as Reply, bytes, limitBytes);
    const shrunk: Outcome =
      outcome.kind === "batch"
        ? { kind: "batch", replies }
        : { ...outcome, reply: replies[0] as Reply, status: outcome.invalid ? outcome.status : 200 };
    rendered = render(shrunk);
    if (bytesOf(rendered, shrunk) <= limitBytes) return rendered;
  }
  // Unreachable: every reply replaced (ids over 1 KiB dropped) is at most 100 short errors.
  return rendered;
}

function tooLarge({ message }: Reply, bytes: number, limitBytes: number): Reply {
  const id = message.id === undefined || serializedBytes(message.id) > 1024 ? null : message.id;
  return {
    message: errorReply(
      id,
      ErrorCode.InternalError,
      `Response too large: this reply was ${bytes} bytes and would not fit in one Lambda response (${limitBytes} bytes). Ask for less (the limit argument, a narrower query) or send fewer requests in one batch.`,
    ),
  };
}
