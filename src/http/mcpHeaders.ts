import type { Refusal } from "./rules.js";

/** `HeaderMismatch` (2026-07-28): a standard MCP header is missing, malformed, or disagrees with the body. */
export const HEADER_MISMATCH = -32020;

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Visible ASCII, space and tab: what RFC 9110 allows in a field value. */
const FIELD_VALUE = /^[\x20-\x7E\t]*$/;
/** Strict: broken UTF-8 is refused; a leading BOM is part of the value, as the client encoded it. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The body field each name-carrying method mirrors in `Mcp-Name`. */
const NAME_SOURCES: ReadonlyMap<string, string> = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
]);

/**
 * `value` without the spaces and horizontal tabs around it: the only whitespace (OWS) RFC 9110 §5.5
 * lets surround a field value. Not JavaScript's `trim()`: a no-break space, a BOM or a line separator
 * is part of the value, and refused where a value may not hold it. A loop, not a regular expression:
 * `/[ \t]+$/` takes quadratic time on a long run of spaces followed by something else.
 */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * A header's value as the client meant it: spaces and tabs around it removed (RFC 9110 §5.5) and, where
 * `sentinel` allows it, a `=?base64?…?=` value decoded from base64 UTF-8. Undefined for a value with
 * characters a header may not carry, or a sentinel whose base64 or UTF-8 is broken.
 */
export function headerValue(raw: string, sentinel: boolean): string | undefined {
  const value = trimOws(raw);
  if (!FIELD_VALUE.test(value)) return undefined;
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

function mismatch(message: string): Refusal {
  return { status: 400, code: HEADER_MISMATCH, message: `Header mismatch: ${message}` };
}

/** A caller's value in an error message: quoted, and cut where it would only make the message long. */
function quoted(value: string): string {
  return `'${value.length > QUOTED_CHARS ? `${value.slice(0, QUOTED_CHARS)}…` : value}'`;
}

const QUOTED_CHARS = 120;

/**
 * `MCP-Protocol-Version` against the version a 2026-07-28 request's `_meta` claims: required, and equal.
 */
export function refuseVersionMismatch(headers: Record<string, string>, claimed: string): Refusal | undefined {
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
  headers: Record<string, string>,
  method: string,
  params: Record<string, unknown> | undefined,
): Refusal | undefined {
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
