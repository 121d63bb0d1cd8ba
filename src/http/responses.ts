/** The result shape API Gateway (both payload versions) and Function URLs accept. */
export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export const CORS_ALLOWED_HEADERS =
  "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID";
export const ALLOWED_METHODS = "POST, DELETE, OPTIONS";

/**
 * Headers every response carries: the caller's origin when it was allowed (`*` when none was sent,
 * nothing when it was refused), and the session header exposed to browsers.
 */
export function corsHeaders(origin: string | undefined, allowed: boolean): Record<string, string> {
  if (origin === undefined) {
    return { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "Mcp-Session-Id" };
  }
  if (!allowed) return { Vary: "Origin" };
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Expose-Headers": "Mcp-Session-Id",
    Vary: "Origin",
  };
}

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string>,
): HttpResponse {
  return {
    statusCode,
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
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
