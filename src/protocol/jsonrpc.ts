import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
} from "../mcp/sdk.js";
import { isPlainObject } from "../util/json.js";
import { isEverydayMessage } from "./everyday.js";
import { checking } from "./inboundChecks.js";

export type { JSONRPCErrorResponse, JSONRPCNotification, JSONRPCRequest, RequestId };
export type JSONRPCReply = JSONRPCResultResponse | JSONRPCErrorResponse;

/** The JSON-RPC and MCP codes the SDK defines (ParseError, InvalidRequest, RequestTimeout…). */
export { ErrorCode };
/** The code MCP servers use for an unknown or expired session (HTTP 404). */
export const SESSION_NOT_FOUND = -32001;
/** Implementation-defined server error: 405, and a session store that is unavailable (503). */
export const SERVER_ERROR = -32000;

export function errorReply(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // The SDK's type has no room for `id: null`, which JSON-RPC requires when the id could not be read.
  return { jsonrpc: "2.0", id: id as RequestId, error: { code, message } };
}

/**
 * The same error to each request a payload held (`replyTo`: its id, a batch's ids, or null when none
 * could be read): what answers a request whose reply was never made.
 */
export function errorsTo(
  replyTo: RequestId | null | readonly RequestId[],
  code: number,
  message: string,
): JSONRPCErrorResponse | JSONRPCErrorResponse[] {
  const error = (id: RequestId | null) => errorReply(id, code, message);
  return Array.isArray(replyTo) ? replyTo.map(error) : error(replyTo as RequestId | null);
}

/**
 * One reply and what the server knows of it, carried beside it: whether it is a fault of the server
 * (answered HTTP 500; only `serverFault` sets it, so no message text or client reply can pass for one),
 * and at most how many bytes it takes once serialized, its id aside (set where a tool result is made,
 * so that measuring it against the response limit costs no serialization).
 */
export interface Reply {
  message: JSONRPCReply;
  fault?: true;
  bound?: number;
}

/** `-32603 Internal error` for a fault of the server (answered HTTP 500; the cause goes only to the log). */
export function serverFault(id: RequestId | null): Reply {
  return { message: errorReply(id, ErrorCode.InternalError, "Internal error"), fault: true };
}

/** The method of each message of a payload (a message or a batch), "-" where there is none. */
export function methodNamesIn(payload: unknown): string[] {
  // Array.from: a payload is JSON, but a caller in the same process may hand over a sparse array.
  const entries: unknown[] = Array.isArray(payload) ? Array.from(payload) : [payload];
  return entries.map((entry) => {
    const method = isPlainObject(entry) && Object.hasOwn(entry, "method") ? entry.method : undefined;
    return typeof method === "string" ? method : "-";
  });
}

export type Classified =
  | { kind: "request"; message: JSONRPCRequest }
  | { kind: "notification"; message: JSONRPCNotification }
  | { kind: "response" }
  | { kind: "invalid"; reply: JSONRPCErrorResponse };

/**
 * A string, or an integer JSON numbers carry exactly: a safe integer (at most 2^53 - 1 either way).
 * Past that, JSON.parse has already rounded the id (9007199254740993 reads as 9007199254740992), and a
 * direct invocation's payload arrives parsed: the id the caller sent cannot be known, so it is not
 * echoed rounded (two requests would share one reply id) but answered as the Invalid Request JSON-RPC
 * makes of an id it cannot read: `-32600` with `id: null`, on every transport.
 */
function isValidId(id: unknown): id is RequestId {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/**
 * True for a message whose id no transport can echo exactly: present, not null, and neither a string
 * nor a safe integer (a number past 2^53 - 1 is already rounded). classify answers it -32600 with id
 * null; the stdio transport hands such a line to classify to answer it the same way.
 */
export function hasUnreadableId(value: unknown): boolean {
  return isPlainObject(value) && Object.hasOwn(value, "id") && value.id !== null && !isValidId(value.id);
}

function describeId(id: unknown): string {
  if (id === null) return "null";
  if (typeof id === "number") {
    return Number.isInteger(id) || Math.abs(id) === Number.POSITIVE_INFINITY
      ? `a number beyond ${Number.MAX_SAFE_INTEGER} (2^53 - 1) in magnitude, which cannot be read exactly: send such an id as a string`
      : "a non-integer number";
  }
  return `a ${Array.isArray(id) ? "array" : typeof id}`;
}

/**
 * Decides what one JSON value is, before it reaches the SDK: the SDK silently drops anything its
 * schemas reject, so every message it would drop must be answered here.
 */
export function classify(value: unknown): Classified {
  checking("message");
  if (!isPlainObject(value)) {
    return invalid(null, "Invalid Request: a JSON-RPC message must be an object");
  }
  const id = isValidId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") {
    return invalid(id, 'Invalid Request: "jsonrpc" must be "2.0"');
  }
  if (!("method" in value)) {
    const isResponse = "result" in value || "error" in value;
    // A response's id is checked too: one past 2^53 must not pass, rounded, for a request's.
    if (isResponse && "id" in value && value.id !== null && !isValidId(value.id)) return invalidId(value.id);
    if (
      isResponse &&
      (isJSONRPCResultResponse(value) || isJSONRPCErrorResponse(value) || isNullIdError(value))
    ) {
      return { kind: "response" };
    }
    return invalid(id, 'Invalid Request: a message needs a "method" (or "result"/"error" for a response)');
  }
  if (typeof value.method !== "string" || value.method === "") {
    return invalid(id, 'Invalid Request: "method" must be a non-empty string');
  }
  if ("id" in value && !isValidId(value.id)) return invalidId(value.id);
  const params = value.params;
  if (params !== undefined && !isPlainObject(params)) {
    const problem = 'Invalid Request: "params" must be an object';
    return invalid(id, problem);
  }
  if (params !== undefined && params._meta !== undefined && !isPlainObject(params._meta)) {
    return invalid(id, 'Invalid Request: "params._meta" must be an object');
  }
  if ("id" in value) {
    if (isEverydayMessage(value, true) || isJSONRPCRequest(value)) {
      return { kind: "request", message: value as JSONRPCRequest };
    }
  } else if (isEverydayMessage(value, false) || isJSONRPCNotification(value)) {
    return { kind: "notification", message: value as JSONRPCNotification };
  }
  return invalid(id, "Invalid Request: not a valid JSON-RPC 2.0 message");
}

function isNullIdError(value: Record<string, unknown>): boolean {
  return value.id === null && isPlainObject(value.error) && typeof value.error.code === "number";
}

function invalidId(id: unknown): Classified {
  return invalid(null, `Invalid Request: "id" must be a string or an integer, not ${describeId(id)}`);
}

function invalid(id: RequestId | null, message: string): Classified {
  return { kind: "invalid", reply: errorReply(id, ErrorCode.InvalidRequest, message) };
}

/** Results that never change, with their JSON, by identity: serialized once, not on every reply. */
const constantJson = new WeakMap<object, string>();

/**
 * Marks `result` as constant (it is frozen) and serializes it once: every reply carrying it is then
 * written from that JSON: serializing a tools/list answer (many KB) was a large share of the request
 * (bench case warm-tools-list).
 */
export function constantResult<T extends object>(result: T): Readonly<T> {
  constantJson.set(Object.freeze(result), JSON.stringify(result));
  return result;
}

/**
 * The reply as JSON, reusing the JSON of a constant result; for a reply made as the bridge makes them
 * (keys `jsonrpc`, `id`, `result`, in that order) it is exactly `JSON.stringify(reply)`.
 */
export function replyJson(reply: JSONRPCReply): string {
  const json =
    "result" in reply && Object.keys(reply).length === 3 ? constantJson.get(reply.result) : undefined;
  if (json === undefined || reply.jsonrpc !== "2.0") return JSON.stringify(reply);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(reply.id)},"result":${json}}`;
}
