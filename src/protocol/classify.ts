import { cut } from "./echo.js";
import { claimedVersion, claimsModernEra, type Envelope, readEnvelope } from "./envelope.js";
import {
  ErrorCode,
  errorReply,
  type JSONRPCErrorResponse,
  type JSONRPCRequest,
  classify as messageKind,
  type RequestId,
} from "./jsonrpc.js";
import {
  protocolVersionHeader,
  type Rejection,
  type RequestHeaders,
  refuseLegacyVersion,
  refuseMismatchedHeaders,
  refuseVersionMismatch,
} from "./mcpHeaders.js";
import { isModernVersion, SUPPORTED_VERSIONS, UNSUPPORTED_PROTOCOL_VERSION } from "./versions.js";

export type { RequestHeaders } from "./mcpHeaders.js";

/** The protocol era of a request: 2026-07-28 ("modern": stateless, `_meta` on every request) or earlier. */
export type Era = "modern" | "legacy";

/** An inbound body: the JSON-RPC payload (one message or a batch), or what JSON.parse threw on it. */
export type Body = { json: unknown } | { notJson: unknown };

/** What an inbound payload is, decided once for HTTP and for direct invocations. */
export type Classification =
  /** 2026-07-28: one well-formed request, its envelope read and its headers checked. */
  | { era: "modern"; kind: "request"; request: JSONRPCRequest; envelope: Envelope }
  /** 2026-07-28: a notification. No server outlives its request to hear one: accepted (202), dropped. */
  | { era: "modern"; kind: "notification" }
  /** Legacy: one `initialize` request (which may open a session). */
  | { era: "legacy"; kind: "initialize"; request: JSONRPCRequest }
  /** Legacy: any other payload, a message or a batch, each entry checked as it is dispatched. */
  | { era: "legacy"; kind: "messages" }
  | Malformed<"modern">
  | Malformed<"legacy">;

/**
 * A payload refused before anything is served: the error to answer and its HTTP status. `notJson`
 * marks a body that did not parse (`-32700`), which PYTHON_COMPAT answers in the Python Lambda's form.
 */
export interface Malformed<E extends Era = Era> {
  era: E;
  kind: "malformed";
  status: number;
  reply: JSONRPCErrorResponse;
  notJson: boolean;
}

/**
 * The one inbound classification: which era a payload belongs to, what kind of message it is, and
 * the error to answer when it is malformed. `headers` (names lower-case) are an HTTP request's; a
 * direct invocation has none, and then only the body decides.
 *
 * The era is 2026-07-28 when `MCP-Protocol-Version` names it, or when the body claims in `_meta` a
 * version that is not a legacy one (its own rules then answer a header that disagrees, or a version
 * not served). Otherwise it is legacy, and a version header must name a legacy revision.
 *
 * Checked in this order, the first failing check answering. 2026-07-28: JSON (-32700); one message,
 * not a batch, not a response, well formed (-32600); the version `_meta` claims against
 * `MCP-Protocol-Version` (-32020) and against the versions served (-32022); the rest of the envelope
 * (-32602); `Mcp-Method`/`Mcp-Name` (-32020). Legacy: `MCP-Protocol-Version` (-32600), then JSON
 * (-32700); the messages themselves are checked as they are dispatched.
 */
export function classify(body: Body, headers?: RequestHeaders): Classification {
  const version = headers === undefined ? undefined : protocolVersionHeader({ headers });
  const headerSaysModern = version !== undefined && isModernVersion(version);
  if ("json" in body) {
    if (headerSaysModern || claimsModern(body.json)) return classifyModern(body.json, headers);
  } else if (headerSaysModern) {
    return notJson("modern", body.notJson);
  }
  const refusal = headers === undefined ? undefined : refuseLegacyVersion(headers);
  if (refusal) return rejected("legacy", refusal, null);
  if (!("json" in body)) return notJson("legacy", body.notJson);
  const initialize = initializeRequestIn(body.json);
  return initialize
    ? { era: "legacy", kind: "initialize", request: initialize }
    : { era: "legacy", kind: "messages" };
}

/** True when the message, or any entry of the batch, claims a version in `_meta` that is not a legacy one. */
function claimsModern(payload: unknown): boolean {
  return Array.isArray(payload) ? payload.some(claimsModernEra) : claimsModernEra(payload);
}

function classifyModern(payload: unknown, headers: RequestHeaders | undefined): Classification {
  if (Array.isArray(payload)) {
    return malformed(
      null,
      ErrorCode.InvalidRequest,
      "Invalid Request: protocol version 2026-07-28 sends one JSON-RPC message per request, not a batch",
    );
  }
  const entry = messageKind(payload);
  if (entry.kind === "invalid") {
    return { era: "modern", kind: "malformed", status: 400, reply: entry.reply, notJson: false };
  }
  if (entry.kind === "response") {
    return malformed(
      null,
      ErrorCode.InvalidRequest,
      "Invalid Request: a 2026-07-28 client sends no responses",
    );
  }
  // No notification of 2026-07-28 travels over HTTP (cancelling is closing the response).
  if (entry.kind === "notification") return { era: "modern", kind: "notification" };

  const request = entry.message;
  const claimed = claimedVersion(request);
  if (claimed !== undefined) {
    const mismatch = headers && refuseVersionMismatch(headers, claimed);
    if (mismatch) return rejected("modern", mismatch, request.id);
    if (!isModernVersion(claimed)) return unsupportedVersion(request.id, claimed);
  }
  const read = readEnvelope(request);
  if ("problem" in read)
    return malformed(request.id, ErrorCode.InvalidParams, `Invalid params: ${read.problem}`);
  const mismatch = headers && refuseMismatchedHeaders(headers, request.method, request.params);
  if (mismatch) return rejected("modern", mismatch, request.id);
  return { era: "modern", kind: "request", request, envelope: read.envelope };
}

function initializeRequestIn(payload: unknown): JSONRPCRequest | undefined {
  // A cheap look first: full classification happens once more in dispatch, for every request.
  if ((payload as { method?: unknown } | null)?.method !== "initialize") return undefined;
  const entry = messageKind(payload);
  return entry.kind === "request" && entry.message.method === "initialize" ? entry.message : undefined;
}

function notJson(era: Era, failure: unknown): Classification {
  const detail = failure instanceof Error ? failure.message : "invalid JSON";
  const reply = errorReply(null, ErrorCode.ParseError, `Parse error: ${detail}`);
  return { era, kind: "malformed", status: 400, reply, notJson: true };
}

/** `-32022` with the versions served and the one asked for, which a client retries from. */
function unsupportedVersion(id: RequestId, requested: string): Classification {
  const reply = errorReply(id, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version");
  reply.error.data = { supported: [...SUPPORTED_VERSIONS], requested: cut(requested) };
  return { era: "modern", kind: "malformed", status: 400, reply, notJson: false };
}

function malformed(id: RequestId | null, code: number, message: string): Classification {
  return {
    era: "modern",
    kind: "malformed",
    status: 400,
    reply: errorReply(id, code, message),
    notJson: false,
  };
}

function rejected(era: Era, rejection: Rejection, id: RequestId | null): Classification {
  const reply = errorReply(id, rejection.code, rejection.message);
  return { era, kind: "malformed", status: rejection.status, reply, notJson: false };
}
