import cors from "./cors.json" with { type: "json" };

/** The result shape API Gateway (both payload versions) and Function URLs accept. */
export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /**
   * SSE frames that follow the headers as they come (a resumed stream, src/routes/resume.ts): only a
   * streaming front door (src/lambda/streaming.ts) is given a response with them; `body` is then empty.
   */
  events?: AsyncIterable<string>;
}

/** The CORS preflight answer, from the settings API Gateway and serverless offline use (serverless.yml). */
export const CORS_PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Methods": cors.allowedMethods.join(", "),
  "Access-Control-Allow-Headers": cors.allowedHeaders.join(", "),
  "Access-Control-Max-Age": String(cors.maxAge),
};
/** The methods `/mcp` answers, for the `Allow` header of a 405. */
export const ALLOWED_METHODS = "POST, DELETE, OPTIONS";

const EXPOSED_HEADERS = cors.exposedResponseHeaders.join(", ");

/**
 * Headers every response carries: the caller's origin when it was allowed (`*` when none was sent,
 * nothing when it was refused), and the session header exposed to browsers.
 */
export function corsHeaders(origin: string | undefined, allowed: boolean): Record<string, string> {
  if (origin === undefined) {
    return { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": EXPOSED_HEADERS };
  }
  if (!allowed) return { Vary: "Origin" };
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Expose-Headers": EXPOSED_HEADERS,
    Vary: "Origin",
  };
}

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string>,
): HttpResponse {
  return serializedJsonResponse(statusCode, JSON.stringify(body), headers);
}

/** A JSON response whose body is serialized already. */
export function serializedJsonResponse(
  statusCode: number,
  json: string,
  headers: Record<string, string>,
): HttpResponse {
  return { statusCode, headers: { ...headers, "Content-Type": "application/json" }, body: json };
}

export function emptyResponse(statusCode: number, headers: Record<string, string>): HttpResponse {
  return { statusCode, headers, body: "" };
}

export function jsonRpcErrorResponse(
  statusCode: number,
  code: number,
  message: string,
  headers: Record<string, string>,
): HttpResponse {
  return jsonResponse(statusCode, { jsonrpc: "2.0", id: null, error: { code, message } }, headers);
}
