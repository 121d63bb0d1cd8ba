import { isPlainObject } from "../util/json.js";
import { isLegacyVersion } from "./versions.js";

/** The `_meta` keys of protocol revision 2026-07-28. */
export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** MCP's log levels (RFC 5424's), least severe first. */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Whether a message at `level` is one a client that asked for `wanted` and above gets. */
export function isLoggedAt(level: string, wanted: string): boolean {
  const at = LOG_LEVELS.indexOf(level);
  const from = LOG_LEVELS.indexOf(wanted);
  return at >= 0 && from >= 0 && at >= from;
}

/** What a 2026-07-28 request says about itself in `params._meta`. */
export interface Envelope {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string } | undefined;
  /** The most verbose `notifications/message` level the client wants for this request; none when absent. */
  logLevel: string | undefined;
  /** The trace id of a well-formed W3C `traceparent` (OpenTelemetry), for the log line. */
  traceId: string | undefined;
}

function metaOf(message: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(message) || !isPlainObject(message.params)) return undefined;
  const meta = message.params._meta;
  return isPlainObject(meta) ? meta : undefined;
}

/**
 * True when a message claims a protocol revision this server does not serve through `initialize`: its
 * `_meta` names a protocol version (any value) that is not a legacy one. Such a message is modern
 * traffic, whatever its headers say; a legacy client's own `_meta` keys never make it one.
 */
export function claimsModernEra(message: unknown): boolean {
  const meta = metaOf(message);
  if (meta === undefined || !Object.hasOwn(meta, META_KEYS.protocolVersion)) return false;
  const claimed = meta[META_KEYS.protocolVersion];
  return typeof claimed !== "string" || !isLegacyVersion(claimed);
}

/** The version the message's `_meta` claims, if it is a string. */
export function claimedVersion(message: unknown): string | undefined {
  const claimed = metaOf(message)?.[META_KEYS.protocolVersion];
  return typeof claimed === "string" ? claimed : undefined;
}

/**
 * The request's envelope, or what is missing or malformed in it (for a `-32602`): the protocol
 * version and client capabilities are required, client info and log level are checked when present.
 */
export function readEnvelope(message: unknown): { envelope: Envelope } | { problem: string } {
  const meta = metaOf(message);
  if (meta === undefined) {
    return {
      problem: `params._meta is required in protocol version 2026-07-28, with "${META_KEYS.protocolVersion}" and "${META_KEYS.clientCapabilities}"`,
    };
  }
  const problems: string[] = [];
  const protocolVersion = meta[META_KEYS.protocolVersion];
  if (typeof protocolVersion !== "string") problems.push(mustBe(META_KEYS.protocolVersion, "a string"));
  const clientCapabilities = meta[META_KEYS.clientCapabilities];
  if (!isPlainObject(clientCapabilities)) problems.push(mustBe(META_KEYS.clientCapabilities, "an object"));
  const clientInfo = meta[META_KEYS.clientInfo];
  if (clientInfo !== undefined && !isImplementation(clientInfo)) {
    problems.push(mustBe(META_KEYS.clientInfo, 'an object with string "name" and "version"', false));
  }
  const logLevel = meta[META_KEYS.logLevel];
  if (logLevel !== undefined && !(typeof logLevel === "string" && LOG_LEVELS.includes(logLevel))) {
    problems.push(mustBe(META_KEYS.logLevel, `one of ${LOG_LEVELS.join(", ")}`, false));
  }
  if (problems.length > 0) return { problem: problems.join("; ") };
  return {
    envelope: {
      protocolVersion: protocolVersion as string,
      clientCapabilities: clientCapabilities as Record<string, unknown>,
      clientInfo: clientInfo as Envelope["clientInfo"],
      logLevel: logLevel as string | undefined,
      traceId: traceIdOf(meta.traceparent),
    },
  };
}

function mustBe(key: string, what: string, required = true): string {
  return `params._meta["${key}"] ${required ? "is required and " : ""}must be ${what}`;
}

function isImplementation(value: unknown): value is { name: string; version: string } {
  return isPlainObject(value) && typeof value.name === "string" && typeof value.version === "string";
}

/**
 * The trace id of a W3C Trace Context `traceparent` (`<version>-<trace id>-<parent id>-<flags>`).
 * One that does not parse is ignored, as the W3C rules say, never refused: tracing is a caller's aid.
 */
function traceIdOf(traceparent: unknown): string | undefined {
  if (typeof traceparent !== "string" || traceparent.length > 512) return undefined;
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(traceparent);
  if (!match) return undefined;
  const [, version, traceId, parentId, , rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId as string) || /^0+$/.test(parentId as string)) return undefined;
  return traceId;
}
