import type { Bridge } from "../bridge/bridge.js";
import { dispatch, type Outcome } from "../bridge/dispatch.js";
import { INTERNAL_ERROR, type JSONRPCReply, PARSE_ERROR } from "../bridge/jsonrpc.js";
import type { HttpRequest } from "../http/event.js";
import {
  ALLOWED_METHODS,
  CORS_ALLOWED_HEADERS,
  corsHeaders,
  emptyResponse,
  type HttpResponse,
  jsonResponse,
  jsonRpcErrorResponse,
} from "../http/responses.js";
import {
  isOriginAllowed,
  type Refusal,
  type RuleSettings,
  refuseForeignOrigin,
  refuseOversizeBody,
  refusePostHeaders,
} from "../http/rules.js";

export interface McpRouteOptions extends RuleSettings {
  pythonCompat: boolean;
  /** Epoch ms by which every forwarded request must be answered. */
  deadlineAt: number;
  /** A bridge to a fresh MCP server, for this request only. */
  openBridge: () => Promise<Bridge>;
}

/** What the handler logs about an MCP request: the JSON-RPC methods it carried. */
export interface McpRouteResult {
  response: HttpResponse;
  methods: string[];
}

const PYTHON_NOTIFICATION_REPLY = { jsonrpc: "2.0" };

export async function handleMcp(request: HttpRequest, options: McpRouteOptions): Promise<McpRouteResult> {
  const origin = request.headers.origin;
  const cors = corsHeaders(origin, origin === undefined || isOriginAllowed(origin, options.allowedOrigins));
  const sizeRefusal = request.method === "OPTIONS" ? undefined : refuseOversizeBody(request, options);
  const refusal = sizeRefusal ?? refuseForeignOrigin(request, options);
  if (refusal) return { response: refuse(refusal, cors), methods: [] };

  if (request.method === "OPTIONS") return { response: preflight(cors), methods: [] };
  if (request.method !== "POST") {
    const allow = { ...cors, Allow: ALLOWED_METHODS };
    return { response: jsonRpcErrorResponse(405, -32000, "Method not allowed", allow), methods: [] };
  }
  const headerRefusal = refusePostHeaders(request);
  if (headerRefusal) return { response: refuse(headerRefusal, cors), methods: [] };

  let payload: unknown;
  try {
    payload = JSON.parse(request.body);
  } catch (error) {
    return { response: parseError(error, options.pythonCompat, cors), methods: [] };
  }
  const methods = methodsOf(payload);
  const outcome = await dispatchClosing(payload, options);
  return { response: toHttpResponse(outcome, options.pythonCompat, cors), methods };
}

/** Runs the payload through a bridge opened only if needed, and closes it afterwards. */
export async function dispatchClosing(
  payload: unknown,
  options: Pick<McpRouteOptions, "deadlineAt" | "openBridge">,
): Promise<Outcome> {
  let opened: Promise<Bridge> | undefined;
  try {
    return await dispatch(payload, {
      deadlineAt: options.deadlineAt,
      bridge: () => {
        opened = options.openBridge();
        return opened;
      },
    });
  } finally {
    if (opened) await (await opened).close();
  }
}

function refuse(refusal: Refusal, cors: Record<string, string>): HttpResponse {
  return jsonRpcErrorResponse(refusal.status, refusal.code, refusal.message, { ...cors, ...refusal.headers });
}

function preflight(cors: Record<string, string>): HttpResponse {
  return emptyResponse(204, {
    ...cors,
    "Access-Control-Allow-Methods": ALLOWED_METHODS,
    "Access-Control-Allow-Headers": CORS_ALLOWED_HEADERS,
    "Access-Control-Max-Age": "86400",
  });
}

function parseError(error: unknown, pythonCompat: boolean, cors: Record<string, string>): HttpResponse {
  if (pythonCompat) return jsonResponse(400, { error: "Invalid JSON in request body" }, cors);
  const detail = error instanceof Error ? error.message : "invalid JSON";
  return jsonRpcErrorResponse(400, PARSE_ERROR, `Parse error: ${detail}`, cors);
}

export function isServerFault(reply: JSONRPCReply): boolean {
  return "error" in reply && reply.error.code === INTERNAL_ERROR && reply.error.message === "Internal error";
}

function toHttpResponse(outcome: Outcome, pythonCompat: boolean, cors: Record<string, string>): HttpResponse {
  switch (outcome.kind) {
    case "accepted":
      return pythonCompat ? jsonResponse(200, PYTHON_NOTIFICATION_REPLY, cors) : emptyResponse(202, cors);
    case "batch":
      return jsonResponse(200, outcome.replies, cors);
    case "single": {
      const status = outcome.invalid ? 400 : isServerFault(outcome.reply) ? 500 : 200;
      return jsonResponse(status, outcome.reply, cors);
    }
  }
}

/** Direct invocations get the JSON-RPC reply itself; nothing to answer is `null` (Python: `{"jsonrpc":"2.0"}`). */
export function toDirectResult(outcome: Outcome, pythonCompat: boolean): unknown {
  switch (outcome.kind) {
    case "accepted":
      return pythonCompat ? PYTHON_NOTIFICATION_REPLY : null;
    case "batch":
      return outcome.replies;
    case "single":
      return outcome.reply;
  }
}

function methodsOf(payload: unknown): string[] {
  const entries = Array.isArray(payload) ? payload : [payload];
  return entries.map((entry) =>
    typeof entry === "object" && entry !== null && typeof (entry as { method?: unknown }).method === "string"
      ? (entry as { method: string }).method
      : "-",
  );
}
