import type { Outcome } from "../bridge/dispatch.js";
import { ErrorCode, errorReply, type JSONRPCReply, replyBound } from "../bridge/jsonrpc.js";
import type { HttpResponse } from "../http/responses.js";

/**
 * The most bytes of any response, as Lambda serializes it. Lambda refuses a synchronous response over
 * 6 MB (6,291,556 bytes) and the caller then gets no JSON-RPC at all; this leaves room to spare.
 */
export const RESPONSE_LIMIT_BYTES = 6_000_000;

/** Room for the HTTP envelope around a body: status, headers, keys. */
const HTTP_ENVELOPE_BYTES = 8 * 1024;

/**
 * What one reply may take when it is a whole HTTP response body. Lambda writes the body as a JSON string
 * inside its payload, which escapes the body's quotes and backslashes again: at most twice its size.
 */
export const HTTP_REPLY_BYTES = Math.floor((RESPONSE_LIMIT_BYTES - HTTP_ENVELOPE_BYTES) / 2);
/** What one reply may take when it is the whole result of a direct invocation. */
export const DIRECT_REPLY_BYTES = RESPONSE_LIMIT_BYTES - HTTP_ENVELOPE_BYTES;

/** Bytes of the payload Lambda sends for this HTTP response, or a bound when that is enough to tell. */
export function httpPayloadBytes(response: HttpResponse): number {
  // A JSON body has no raw control characters, so escaping it again takes each ASCII character to at
  // most 2 bytes and leaves the others at their UTF-8 size, at most 3 bytes per UTF-16 unit. This bound
  // costs nothing, where measuring a body's UTF-8 length walks every character of it.
  const cheap = 3 * response.body.length + HTTP_ENVELOPE_BYTES;
  if (cheap <= RESPONSE_LIMIT_BYTES) return cheap;
  const bound = 2 * Buffer.byteLength(response.body, "utf8") + HTTP_ENVELOPE_BYTES;
  if (bound <= RESPONSE_LIMIT_BYTES) return bound;
  return Buffer.byteLength(JSON.stringify(response), "utf8");
}

/**
 * Bytes of a direct invocation's result as Lambda serializes it, or a bound when that is enough to
 * tell: a tool result's reply is bounded when it is made, and serializing it again to measure it
 * would cost as much as Lambda's own serialization.
 */
export function directPayloadBytes(result: unknown): number {
  const replies = Array.isArray(result) ? result : [result];
  let bound = 0;
  for (const reply of replies) {
    const known = replyBound(reply);
    bound +=
      known === undefined ? serializedBytes(reply) : known + serializedBytes((reply as JSONRPCReply).id);
  }
  return bound <= RESPONSE_LIMIT_BYTES ? bound : serializedBytes(result);
}

function serializedBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, "utf8");
}

/**
 * The outcome with its largest replies replaced by a short error, as few as needed for `render` to fit
 * RESPONSE_LIMIT_BYTES. Tool results are cut to their share before this point; what remains are
 * replies that carry a caller's own huge values back (ids, names in error messages).
 */
export function withinLimit<R>(
  outcome: Outcome,
  render: (outcome: Outcome) => R,
  bytesOf: (rendered: R) => number,
): R {
  let rendered = render(outcome);
  if (outcome.kind === "accepted" || bytesOf(rendered) <= RESPONSE_LIMIT_BYTES) return rendered;
  const replies = outcome.kind === "batch" ? [...outcome.replies] : [outcome.reply];
  const bySize = replies
    .map((reply, index) => ({ index, bytes: serializedBytes(reply) }))
    .sort((a, b) => b.bytes - a.bytes);
  for (const { index, bytes } of bySize) {
    replies[index] = tooLarge(replies[index] as JSONRPCReply, bytes);
    const shrunk: Outcome =
      outcome.kind === "batch"
        ? { kind: "batch", replies }
        : { ...outcome, reply: replies[0] as JSONRPCReply };
    rendered = render(shrunk);
    if (bytesOf(rendered) <= RESPONSE_LIMIT_BYTES) return rendered;
  }
  // Unreachable: every reply replaced (ids over 1 KiB dropped) is at most 100 short errors.
  return rendered;
}

function tooLarge(reply: JSONRPCReply, bytes: number): JSONRPCReply {
  const id = reply.id === undefined || serializedBytes(reply.id) > 1024 ? null : reply.id;
  return errorReply(
    id,
    ErrorCode.InternalError,
    `Response too large: this reply was ${bytes} bytes and would not fit in one Lambda response (${RESPONSE_LIMIT_BYTES} bytes). Ask for less (the limit argument, a narrower query) or send fewer requests in one batch.`,
  );
}
