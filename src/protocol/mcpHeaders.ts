import { isFieldValue, present, trimOws } from "../http/fieldValue.js";
import { ErrorCode } from "../mcp/sdk.js";
import { cut } from "./echo.js";
import { isLegacyVersion, SUPPORTED_VERSIONS } from "./versions.js";

/**
 * The rules MCP itself sets on its HTTP headers: `MCP-Protocol-Version` on every era, and the
 * 2026-07-28 headers that mirror the JSON-RPC body (`Mcp-Method`, `Mcp-Name`, with their base64
 * sentinel). They are protocol rules, not HTTP plumbing: each compares a header with the message it
 * travels with, or with the revisions served, and answers with an MCP error code.
 */

/** Request headers, names lower-case. */
export type RequestHeaders = Readonly<Record<string, string>>;

/** A message the protocol rules refuse: answered with this HTTP status and a JSON-RPC error. */
export interface Rejection {
  status: number;
  code: number;
  message: string;
}

/** `HeaderMismatch` (2026-07-28): a standard MCP header is missing, malformed, or disagrees with the body. */
export const HEADER_MISMATCH = -32020;

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Strict: broken UTF-8 is refused; a leading BOM is part of the value, as the client encoded it. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The body field each name-carrying method mirrors in `Mcp-Name`. */
const NAME_SOURCES: ReadonlyMap<string, string> = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
]);

/**
 * A header's value as the client meant it: spaces and tabs around it removed (RFC 9110 §5.5) and, where
 * `sentinel` allows it, a `=?base64?…?=` value decoded from base64 UTF-8. Undefined for a value with
 * characters a header may not carry, or a sentinel whose base64 or UTF-8 is broken.
 */
export function headerValue(raw: string, sentinel: boolean): string | undefined {
  const value = trimOws(raw);
  if (!isFieldValue(value)) return undefined;
  if (!sentinel || !value.startsWith(SENTINEL_PREFIX) || !value.endsWith(SENTINEL_SUFFIX)) return value;
  if (value.length < SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length) return value;
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  try {
    return utf8.decode(Buffer.from(encoded, "base64"));
  } catch {
    return undefined;
  }
}

function mismatch(message: string): Rejection {
  return { status: 400, code: HEADER_MISMATCH, message: `Header mismatch: ${message}` };
}

/** A caller's value in an error message: quoted, and cut where it would only make the message long. */
function quoted(value: string): string {
  return `'${cut(value)}'`;
}

/**
 * `MCP-Protocol-Version` against the version a 2026-07-28 request's `_meta` claims: required, and equal.
 */
export function refuseVersionMismatch(headers: RequestHeaders, claimed: string): Rejection | undefined {
  const raw = headers["mcp-protocol-version"];
  if (raw === undefined) return mismatch("the MCP-Protocol-Version header is required");
  const sent = headerValue(raw, false);
  if (sent === undefined) {
    return mismatch("the MCP-Protocol-Version header has characters a header may not carry");
  }
  if (sent !== claimed) {
    return mismatch(
      `MCP-Protocol-Version header value ${quoted(sent)} does not match _meta protocol version ${quoted(claimed)}`,
    );
  }
  return undefined;
}

/**
 * The standard request headers of 2026-07-28 against the request they travel with: `Mcp-Method` on
 * every request, `Mcp-Name` on the methods that name something (tools/call, prompts/get,
 * resources/read). Missing, malformed or different from the body: 400 `-32020`.
 */
export function refuseMismatchedHeaders(
  headers: RequestHeaders,
  method: string,
  params: Record<string, unknown> | undefined,
): Rejection | undefined {
  const methodHeader = headers["mcp-method"];
  if (methodHeader === undefined) return mismatch("the Mcp-Method header is required");
  const sentMethod = headerValue(methodHeader, false);
  if (sentMethod === undefined)
    return mismatch("the Mcp-Method header has characters a header may not carry");
  if (sentMethod !== method) {
    return mismatch(
      `Mcp-Method header value ${quoted(sentMethod)} does not match body value ${quoted(method)}`,
    );
  }
  const source = NAME_SOURCES.get(method);
  const nameHeader = headers["mcp-name"];
  if (source === undefined) return undefined;
  const bodyValue = params?.[source];
  const bodyName = typeof bodyValue === "string" ? bodyValue : undefined;
  if (nameHeader === undefined) {
    return bodyName === undefined ? undefined : mismatch(`the Mcp-Name header is required for ${method}`);
  }
  const sentName = headerValue(nameHeader, true);
  if (sentName === undefined) {
    return mismatch("the Mcp-Name header is malformed (characters a header may not carry, or broken base64)");
  }
  if (sentName !== bodyName) {
    const body = bodyName === undefined ? `no params.${source}` : `body value ${quoted(bodyName)}`;
    return mismatch(`Mcp-Name header value ${quoted(sentName)} does not match ${body}`);
  }
  return undefined;
}

/**
 * The `MCP-Protocol-Version` header's value, spaces and tabs around it removed; undefined when it is
 * absent or empty.
 */
export function protocolVersionHeader(request: { headers: RequestHeaders }): string | undefined {
  const version = request.headers["mcp-protocol-version"];
  return present(version) ? trimOws(version) : undefined;
}

/**
 * The version rule for a legacy request (one that is not 2026-07-28 traffic): a version header, when
 * sent, must name a legacy revision. A 2026-07-28 request has its own rules (classify.ts).
 */
export function refuseLegacyVersion(headers: RequestHeaders): Rejection | undefined {
  const version = protocolVersionHeader({ headers });
  if (version === undefined || isLegacyVersion(version)) return undefined;
  return {
    status: 400,
    code: ErrorCode.InvalidRequest,
    message: `Bad Request: unsupported MCP-Protocol-Version ${headers["mcp-protocol-version"]}; supported versions: ${SUPPORTED_VERSIONS.join(", ")}`,
  };
}
