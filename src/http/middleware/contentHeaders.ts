import { ErrorCode } from "../../mcp/sdk.js";
import type { HttpRequest } from "../event.js";
import { present, trimOws } from "../fieldValue.js";
import { type EdgeMiddleware, type Refusal, refusalAnswer } from "./edge.js";

// Our own rather than @middy/http-content-negotiation / http-header-normalizer: those answer 415/406
// with their own bodies, and read an absent Accept or Content-Type differently from the contract.

function isJsonMediaType(contentType: string): boolean {
  const mediaType = trimOws(contentType.split(";")[0] ?? "").toLowerCase();
  return mediaType === "application/json" || /^application\/[^/\s]+\+json$/.test(mediaType);
}

/** Reads `Accept` as media ranges: `application/json`, `application/*` or `*\/*` with q > 0 admit JSON. */
function acceptsJson(accept: string): boolean {
  return accept.split(",").some((range) => {
    const [type = "", ...parameters] = range.split(";").map((part) => trimOws(part).toLowerCase());
    const quality = parameters.find((parameter) => /^q\s*=/.test(parameter));
    if (quality !== undefined && !(Number(quality.split("=")[1]) > 0)) return false;
    return type === "application/json" || type === "application/*" || type === "*/*";
  });
}

/** The content header rules for `POST /mcp`, in the contract's order: Content-Type (415), then Accept (406). */
export function refusePostHeaders(request: HttpRequest): Refusal | undefined {
  const contentType = request.headers["content-type"];
  if (present(contentType) && !isJsonMediaType(contentType)) {
    return {
      status: 415,
      code: ErrorCode.InvalidRequest,
      message: `Unsupported Media Type: Content-Type must be application/json, not ${contentType}`,
    };
  }
  const accept = request.headers.accept;
  if (present(accept) && !acceptsJson(accept)) {
    return {
      status: 406,
      code: ErrorCode.InvalidRequest,
      message: "Not Acceptable: the client must accept application/json",
    };
  }
  return undefined;
}

/**
 * The content header rules as a middleware, last of the chain: a POST only (other methods carry no
 * JSON-RPC body; the route answers them), after size, origin and the preflight.
 */
export const contentHeadersRule: EdgeMiddleware = {
  name: "content-headers",
  before: ({ event }) =>
    event.request.method === "POST"
      ? refusalAnswer(refusePostHeaders(event.request), event.decided)
      : undefined,
};
