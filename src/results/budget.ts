import type { Budget } from "./fit.js";
import { resultBytesCap } from "./inlineSize.js";

/**
 * The token budget, from the Lambda limit down to the cut: every figure of the chain, in the order it is
 * derived. Who reads what: src/routes/ceiling.ts checks whole responses against the front door's limit,
 * src/mcp/server.ts gives each tool call the budget of resultBudget, and src/results/cut.ts and fit.ts cut a
 * result to it.
 *
 * 1. The front door's limit on a response: RESPONSE_LIMIT_BYTES (a buffered Lambda response, 6 MB) or
 *    STREAMED_RESPONSE_LIMIT_BYTES (a streamed one, 200 MB).
 * 2. Less the HTTP envelope (HTTP_ENVELOPE_BYTES), the bytes one JSON-RPC reply may take: HTTP_REPLY_BYTES
 *    (buffered: the body is escaped again inside Lambda's payload, so half), STREAMED_REPLY_BYTES, or
 *    DIRECT_REPLY_BYTES (a direct invocation, whose payload is the reply). The request's context carries
 *    it (`replyBytes`; unbounded under stdio, whose lines are bounded by the client's reader).
 * 3. Less the reply's own envelope (REPLY_ENVELOPE_BYTES), a third of what is left is one result's text
 *    (the reply carries it escaped, at most twice its bytes, and its structured copy, at most once more),
 *    capped by MAX_RESULT_BYTES (by default what Claude Code keeps inline: inlineSize.ts).
 * 4. With MAX_RESULT_TOKENS, the model's budget, that is the Budget the cut fits a result to (resultBudget);
 *    a result still over it is cut again with less, FIT_ATTEMPTS times at most, each time REFIT_MARGIN
 *    under what the last text was over.
 */

/**
 * The most bytes of any response, as Lambda serializes it. Lambda refuses a synchronous response over
 * 6 MB (6,291,556 bytes) and the caller then gets no JSON-RPC at all; this leaves room to spare.
 */
export const RESPONSE_LIMIT_BYTES = 6_000_000;

/** Room for the HTTP envelope around a body: status, headers, keys. */
export const HTTP_ENVELOPE_BYTES = 8 * 1024;

/**
 * What one reply may take when it is a whole HTTP response body. Lambda writes the body as a JSON string
 * inside its payload, which escapes the body's quotes and backslashes again: at most twice its size.
 */
export const HTTP_REPLY_BYTES = Math.floor((RESPONSE_LIMIT_BYTES - HTTP_ENVELOPE_BYTES) / 2);
/** What one reply may take when it is the whole result of a direct invocation. */
export const DIRECT_REPLY_BYTES = RESPONSE_LIMIT_BYTES - HTTP_ENVELOPE_BYTES;

/**
 * The most bytes of a response streamed through a streaming front door (src/lambda/streaming.ts): Lambda
 * streams up to 200 MB (a Function URL in RESPONSE_STREAM mode, a REST API integration that streams),
 * less room to spare. The body goes out as it is, not escaped into a JSON payload.
 */
export const STREAMED_RESPONSE_LIMIT_BYTES = 200_000_000;
/** What one reply may take as the whole body of a streamed response. */
export const STREAMED_REPLY_BYTES = STREAMED_RESPONSE_LIMIT_BYTES - HTTP_ENVELOPE_BYTES;

/** Room in a reply for everything but the result's text and structured copy: the envelope, the id. */
export const REPLY_ENVELOPE_BYTES = 2_048;

/**
 * The budget of one result: MAX_RESULT_TOKENS, and in bytes its share of the reply and MAX_RESULT_BYTES
 * (by default what Claude Code keeps inline: ./inlineSize.ts). A reply carries the text escaped (at most
 * twice its bytes) and the structured copy (at most its bytes again), so three times the text always fits.
 */
export function resultBudget(
  maxResultTokens: number,
  maxResultBytes: number | undefined,
  replyBytes: number,
): Budget {
  const share = Math.max(0, Math.floor((replyBytes - REPLY_ENVELOPE_BYTES) / 3));
  return { tokens: maxResultTokens, bytes: Math.min(share, resultBytesCap(maxResultBytes)) };
}

/** A result over the budget is cut again with less this many times, then given up on. */
export const FIT_ATTEMPTS = 4;
/** Asking again, the budget shrinks by what the last text was over, and this much more. */
export const REFIT_MARGIN = 0.97;
