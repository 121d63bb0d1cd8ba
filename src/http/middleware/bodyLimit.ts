import { ErrorCode } from "../../mcp/sdk.js";
import type { HttpRequest } from "../event.js";
import { type EdgeMiddleware, isPreflight, type Refusal, refusalAnswer } from "./edge.js";

// Our own rather than a Middy package: none refuses by size with the contract's 413 JSON-RPC error.

/** MAX_BODY_BYTES: a body over it is refused 413 before it is parsed. */
export function refuseOversizeBody(request: HttpRequest, maxBodyBytes: number): Refusal | undefined {
  if (request.bodyBytes <= maxBodyBytes) return undefined;
  return {
    status: 413,
    code: ErrorCode.InvalidRequest,
    message: `Request body too large: ${request.bodyBytes} bytes, the limit is ${maxBodyBytes} bytes (MAX_BODY_BYTES)`,
  };
}

/** The body limit as a middleware; a preflight is never refused for its size. */
export function bodyLimitRule(maxBodyBytes: number): EdgeMiddleware {
  return {
    name: "body-limit",
    before: ({ event }) =>
      isPreflight(event.request)
        ? undefined
        : refusalAnswer(refuseOversizeBody(event.request, maxBodyBytes), event.decided),
  };
}
