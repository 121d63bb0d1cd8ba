import type { RequestContext } from "../context.js";
import type { Bridge } from "../mcp/bridge/bridge.js";
import { type Outcome, single } from "../mcp/bridge/dispatch.js";
import { cut } from "../protocol/echo.js";
import { META_KEYS } from "../protocol/envelope.js";
import { ErrorCode, errorReply, type JSONRPCRequest, type Reply } from "../protocol/jsonrpc.js";
import { SUPPORTED_VERSIONS } from "../protocol/versions.js";

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
  /** The deployment serves the MCP Apps view (src/views/): the resources methods are implemented. */
  views: boolean;
}

/**
 * How long a client (or a shared cache: the answers are the same for every caller) may keep
 * `server/discover` and `tools/list` answers. They change only when a new version is deployed; an
 * hour bounds how long a client may go on using the tool list of the version before.
 */
export const LIST_TTL_MS = 3_600_000;

/** The methods of 2026-07-28 this server implements; every other one is 404 `-32601`. */
const FORWARDED = new Set(["tools/list", "tools/call"]);
/** Implemented too when the deployment serves the MCP Apps view. */
const VIEW_METHODS = new Set(["resources/list", "resources/templates/list", "resources/read"]);
/** The view's page changes only with a deploy, as the lists do. */
const CACHEABLE = new Set(["server/discover", "tools/list", ...VIEW_METHODS]);
/** Legacy methods a 2026-07-28 request may not use, named in their `-32601` so the caller sees why. */
const REMOVED = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/**
 * Serves one 2026-07-28 request that `classify` (src/protocol/classify.ts) found well formed, its
 * envelope and headers checked: stateless, by this container's shared server. `server/discover` is
 * answered here; a method this server does not implement is 404 `-32601`. The outcome is one reply.
 */
export async function answerModern(
  request: JSONRPCRequest,
  options: ModernOptions,
  context: RequestContext,
): Promise<Outcome> {
  if (request.method === "server/discover") {
    const message = { jsonrpc: "2.0" as const, id: request.id, result: discoverResult(options.identity) };
    return single(complete({ message }, request.method, options.identity));
  }
  if (!FORWARDED.has(request.method) && !(options.views && VIEW_METHODS.has(request.method))) {
    const removed = REMOVED.has(request.method) ? " (not part of protocol version 2026-07-28)" : "";
    const message = errorReply(
      request.id,
      ErrorCode.MethodNotFound,
      `Method not found: ${cut(request.method)}${removed}`,
    );
    return { kind: "single", reply: { message }, status: 404, invalid: false };
  }
  const reply = await (await options.sharedBridge()).request(request, context);
  return single(complete(reply, request.method, options.identity));
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
function complete(reply: Reply, method: string, identity: ServerIdentity): Reply {
  const { message } = reply;
  if (!("result" in message)) return reply;
  const result = message.result;
  const meta = typeof result._meta === "object" && result._meta !== null ? result._meta : {};
  const completed = {
    ...message,
    result: {
      ...result,
      resultType: "complete",
      ...(CACHEABLE.has(method) ? { ttlMs: LIST_TTL_MS, cacheScope: "public" } : {}),
      _meta: { ...meta, [META_KEYS.serverInfo]: { name: identity.name, version: identity.version } },
    },
  };
  return reply.bound === undefined
    ? { message: completed }
    : { message: completed, bound: reply.bound + COMPLETION_BYTES };
}
