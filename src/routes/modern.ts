import type { Bridge } from "../bridge/bridge.js";
import { claimedVersion, type Envelope, META_KEYS, readEnvelope } from "../bridge/envelope.js";
import {
  boundReply,
  classify,
  ErrorCode,
  errorReply,
  isServerFault,
  type JSONRPCReply,
  type JSONRPCRequest,
  type RequestId,
  replyBound,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../bridge/jsonrpc.js";
import { isModernVersion, SUPPORTED_VERSIONS } from "../bridge/versions.js";
import type { RequestContext } from "../context.js";
import { refuseMismatchedHeaders, refuseVersionMismatch } from "../http/mcpHeaders.js";
import type { Refusal } from "../http/rules.js";

/** Who this server is and what it offers: `server/discover`, and every result's `_meta`. */
export interface ServerIdentity {
  name: string;
  version: string;
  instructions: string;
  capabilities: Record<string, unknown>;
}

export interface ModernOptions {
  /**
   * The bridge to this container's shared server: the methods served here (tools/list, tools/call)
   * change no MCP state, and 2026-07-28 has no other state to keep.
   */
  sharedBridge: () => Promise<Bridge>;
  identity: ServerIdentity;
}

/**
 * How long a client (or a shared cache: the answers are the same for every caller) may keep
 * `server/discover` and `tools/list` answers. They change only when a new version is deployed; an
 * hour bounds how long a client may go on using the tool list of the version before.
 */
export const LIST_TTL_MS = 3_600_000;

/** The methods of 2026-07-28 this server implements; every other one is 404 `-32601`. */
const FORWARDED = new Set(["tools/list", "tools/call"]);
const CACHEABLE = new Set(["server/discover", "tools/list"]);
/** Legacy methods a 2026-07-28 request may not use, named in their `-32601` so the caller sees why. */
const REMOVED = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** What became of a 2026-07-28 payload: one reply with its HTTP status, or nothing to answer. */
export type ModernAnswer =
  | { kind: "reply"; status: number; reply: JSONRPCReply; envelope?: Envelope }
  | { kind: "accepted" };

/**
 * Answers one payload of protocol revision 2026-07-28: stateless, one message per POST, served by a
 * fresh server and checked in this order (the first failing check answers): the message's shape
 * (-32600), the version its `_meta` claims against `MCP-Protocol-Version` (-32020) and against the
 * versions served (-32022), the rest of the `_meta` envelope (-32602), `Mcp-Method`/`Mcp-Name`
 * (-32020), the method (404, -32601). `headers` (lower-case names) is undefined for a direct
 * invocation, which has no headers to check.
 */
export async function answerModern(
  payload: unknown,
  headers: Record<string, string> | undefined,
  options: ModernOptions,
  context: RequestContext,
): Promise<ModernAnswer> {
  if (Array.isArray(payload)) {
    return refused(
      null,
      ErrorCode.InvalidRequest,
      "Invalid Request: protocol version 2026-07-28 sends one JSON-RPC message per request, not a batch",
    );
  }
  const entry = classify(payload);
  if (entry.kind === "invalid") return { kind: "reply", status: 400, reply: entry.reply };
  if (entry.kind === "response") {
    return refused(null, ErrorCode.InvalidRequest, "Invalid Request: a 2026-07-28 client sends no responses");
  }
  // No notification of 2026-07-28 travels over HTTP (cancelling is closing the response), and no server
  // outlives its request to hear one: accepted, as the transport says, and dropped.
  if (entry.kind === "notification") return { kind: "accepted" };

  const request = entry.message;
  const claimed = claimedVersion(request);
  if (claimed !== undefined) {
    const mismatch = headers && refuseVersionMismatch(headers, claimed);
    if (mismatch) return refusedBy(mismatch, request.id);
    if (!isModernVersion(claimed)) return unsupportedVersion(request.id, claimed);
  }
  const read = readEnvelope(request);
  if ("problem" in read)
    return refused(request.id, ErrorCode.InvalidParams, `Invalid params: ${read.problem}`);
  const mismatch = headers && refuseMismatchedHeaders(headers, request.method, request.params);
  if (mismatch) return refusedBy(mismatch, request.id);

  const answer = await run(request, options, context);
  return { ...answer, envelope: read.envelope };
}

async function run(
  request: JSONRPCRequest,
  options: ModernOptions,
  context: RequestContext,
): Promise<{ kind: "reply"; status: number; reply: JSONRPCReply }> {
  if (request.method === "server/discover") {
    const reply = { jsonrpc: "2.0" as const, id: request.id, result: discoverResult(options.identity) };
    return { kind: "reply", status: 200, reply: complete(reply, request.method, options.identity) };
  }
  if (!FORWARDED.has(request.method)) {
    const removed = REMOVED.has(request.method) ? " (not part of protocol version 2026-07-28)" : "";
    return {
      kind: "reply",
      status: 404,
      reply: errorReply(
        request.id,
        ErrorCode.MethodNotFound,
        `Method not found: ${cut(request.method)}${removed}`,
      ),
    };
  }
  const reply = await (await options.sharedBridge()).request(request, context);
  return {
    kind: "reply",
    status: isServerFault(reply) ? 500 : 200,
    reply: complete(reply, request.method, options.identity),
  };
}

function discoverResult(identity: ServerIdentity): Record<string, unknown> {
  return {
    supportedVersions: [...SUPPORTED_VERSIONS],
    capabilities: identity.capabilities,
    instructions: identity.instructions,
  };
}

/** Room for what `complete` adds to a result: resultType, server info, cache hints. */
const COMPLETION_BYTES = 512;

/**
 * A result as 2026-07-28 has it: `resultType: "complete"`, the server named in `_meta`, and cache hints
 * on the cacheable methods. Errors pass unchanged.
 */
function complete(reply: JSONRPCReply, method: string, identity: ServerIdentity): JSONRPCReply {
  if (!("result" in reply)) return reply;
  const result = reply.result;
  const meta = typeof result._meta === "object" && result._meta !== null ? result._meta : {};
  const completed: JSONRPCReply = {
    ...reply,
    result: {
      ...result,
      resultType: "complete",
      ...(CACHEABLE.has(method) ? { ttlMs: LIST_TTL_MS, cacheScope: "public" } : {}),
      _meta: { ...meta, [META_KEYS.serverInfo]: { name: identity.name, version: identity.version } },
    },
  };
  const bound = replyBound(reply);
  return bound === undefined ? completed : boundReply(completed, bound + COMPLETION_BYTES);
}

/** `-32022` with the versions served and the one asked for, which a client retries from. */
function unsupportedVersion(id: RequestId, requested: string): ModernAnswer {
  const reply = errorReply(id, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version");
  reply.error.data = { supported: [...SUPPORTED_VERSIONS], requested: cut(requested) };
  return { kind: "reply", status: 400, reply };
}

function refused(id: RequestId | null, code: number, message: string): ModernAnswer {
  return { kind: "reply", status: 400, reply: errorReply(id, code, message) };
}

function refusedBy(refusal: Refusal, id: RequestId): ModernAnswer {
  return { kind: "reply", status: refusal.status, reply: errorReply(id, refusal.code, refusal.message) };
}

/** A caller's string in an answer is cut here: enough to recognise it, never a megabyte echoed. */
const ECHOED_CHARS = 120;

function cut(text: string): string {
  return text.length > ECHOED_CHARS ? `${text.slice(0, ECHOED_CHARS)}…` : text;
}
