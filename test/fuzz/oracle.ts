import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from "@modelcontextprotocol/sdk/types.js";
import { AUTHORIZATION_MARKER, type FuzzEvent, META_KEYS, MODERN_VERSION } from "./arbitraries.js";

/**
 * The invariants every answer of the handler must meet, whatever the event. Each check returns the
 * problems it found, as "kind: detail" lines; the kind (before the colon) groups findings.
 *
 * A POST to /mcp (or a direct invocation) is served by the rules of protocol revision 2026-07-28 or of
 * the legacy revisions, and the oracle tells which from the event as the server must (`trafficOf`).
 * Legacy traffic keeps the contract's table of statuses and codes; for 2026-07-28 traffic the answer
 * is known exactly from the event (status, code, id), its results are complete and name the server,
 * and no answer of it carries a session.
 *
 * A 500 is a finding: in the fuzz environment nothing the server depends on is broken (the session
 * store answers, Prometheus answers or refuses in ways the tools handle), so any `-32603 Internal
 * error`, HTTP 500 or ERROR log line means the server itself is at fault.
 */

export interface FuzzSettings {
  pythonCompat: boolean;
}

export interface Observation {
  input: FuzzEvent;
  /** What the handler resolved with (undefined when it threw). */
  result: unknown;
  /** What it threw or rejected with, if it did. */
  thrown?: unknown;
  threw: boolean;
  /** How long it took: for the report only (how soon after its deadline an answer comes is the bench's). */
  elapsedMs: number;
  /** No answer within the remaining time plus HANG_GRACE_MS: the run moved on without it. */
  hung?: boolean;
  /** What it wrote to stdout and stderr while it ran. */
  logs: string[];
  /** The logs are those of several events run at once: only what holds for any line is checked. */
  sharedLogs?: boolean;
}

/**
 * How long past the remaining time an event is waited for: a generous bound, not a figure (every answer
 * is due by its deadline, 500 ms before; how soon after it one comes is the bench's deadline-answer).
 */
export const HANG_GRACE_MS = 5_000;
/** Lambda's response limit as the server enforces it (src/routes/ceiling.ts). */
const RESPONSE_LIMIT_BYTES = 6_000_000;
/** With this much time left, a session store that is up answers (its own cap is 3 s). */
const STORE_SURELY_ANSWERS_MS = 5_000;
/** The most bytes one request log line may take. */
export const MAX_REQUEST_LOG_LINE_BYTES = 4_096;
/** The most bytes any log line may take (an error's stack included). */
const MAX_LOG_LINE_BYTES = 16_384;

/** The start of every odd bearer token the fuzz suite's secrets hold (handler.fuzz.test.ts ODD_SECRETS). */
export const ODD_SECRET_MARKER = "fuzz-odd-secret";

/** Strings no answer may carry unless the caller sent them: stack frames, source paths, credentials. */
function secretsAndInternals(): string[] {
  return [
    "    at ",
    "/work/",
    "node_modules",
    "src/",
    ".ts:",
    AUTHORIZATION_MARKER,
    "fuzz-secret-token",
    ODD_SECRET_MARKER,
    "AKIDTESTFAKE",
    "test-secret-not-real",
    "AKIDCIFAKEKEY",
    "ci-secret-not-real",
    process.env.AWS_ACCESS_KEY_ID,
    process.env.AWS_SECRET_ACCESS_KEY,
  ].filter((marker): marker is string => typeof marker === "string" && marker.length >= 4);
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(value: unknown, key: string): unknown {
  return isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

function ownPath(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = own(current, key);
  return current;
}

/** The contract's "how to recognise it": an HTTP event, or else a direct invocation. */
export function isHttpShaped(event: unknown): boolean {
  if (typeof own(event, "httpMethod") === "string") return true;
  return isObject(ownPath(event, "requestContext", "http")) && typeof own(event, "rawPath") === "string";
}

function isRestApi(event: unknown): boolean {
  return typeof own(event, "httpMethod") === "string";
}

function pathOf(event: unknown): string {
  if (isRestApi(event)) {
    const path = own(event, "path");
    return typeof path === "string" && path !== "" ? path : "/";
  }
  return own(event, "rawPath") as string;
}

function methodOf(event: unknown): string {
  const method = isRestApi(event)
    ? own(event, "httpMethod")
    : ownPath(event, "requestContext", "http", "method");
  if (method === undefined || method === null) return "GET";
  return typeof method === "string" ? method.toUpperCase() : "";
}

function routeOf(path: string): string {
  const last = path
    .split("/")
    .filter((segment) => segment !== "")
    .at(-1);
  return last === "mcp" || last === "health" ? last : "other";
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The caller the authorizer named, as the contract reads it. */
export function principalOf(event: unknown): string | undefined {
  if (isRestApi(event)) {
    return (
      text(ownPath(event, "requestContext", "identity", "userArn")) ??
      text(ownPath(event, "requestContext", "authorizer", "claims", "sub")) ??
      text(ownPath(event, "requestContext", "authorizer", "jwt", "claims", "sub"))
    );
  }
  return (
    text(ownPath(event, "requestContext", "authorizer", "iam", "userArn")) ??
    text(ownPath(event, "requestContext", "authorizer", "jwt", "claims", "sub"))
  );
}

/** Every string in the event (keys too), and its body decoded from base64: what the caller sent. */
export function sentText(event: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === "string") {
      parts.push(value);
      return;
    }
    if (typeof value !== "object" || value === null || seen.has(value) || depth > 64) return;
    seen.add(value);
    for (const key of Object.keys(value)) {
      parts.push(key);
      walk((value as Json)[key], depth + 1);
    }
  };
  walk(event, 0);
  const body = own(event, "body");
  if (typeof body === "string") parts.push(Buffer.from(body, "base64").toString("utf8"));
  return parts.join("\u0001");
}

/** A JSON-RPC 2.0 response object's problems (none when well formed). */
export function replyProblems(reply: unknown): string[] {
  if (!isObject(reply)) return ["not an object"];
  const problems: string[] = [];
  if (reply.jsonrpc !== "2.0") problems.push('"jsonrpc" is not "2.0"');
  const hasResult = Object.hasOwn(reply, "result");
  const hasError = Object.hasOwn(reply, "error");
  if (hasResult === hasError) problems.push("needs exactly one of result and error");
  const id = reply.id;
  const idOk =
    typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) || (id === null && hasError);
  if (!idOk) problems.push(`bad id ${JSON.stringify(id)}`);
  if (hasResult && !isObject(reply.result)) problems.push("result is not an object");
  if (hasError) {
    const error = reply.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string") {
      problems.push(`malformed error ${short(JSON.stringify(error))}`);
    }
  }
  return problems;
}

function isInternalError(reply: unknown): boolean {
  const error = own(reply, "error");
  return own(error, "code") === -32603 && own(error, "message") === "Internal error";
}

function errorCode(reply: unknown): number | undefined {
  const code = own(own(reply, "error"), "code");
  return typeof code === "number" ? code : undefined;
}

function short(value: string | undefined, max = 300): string {
  if (value === undefined) return "undefined";
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length} chars)`;
}

/** The statuses the contract allows on /mcp with the JSON-RPC codes each may carry. */
const MCP_STATUS_CODES: Record<number, readonly number[] | "any-but-invalid"> = {
  200: "any-but-invalid",
  400: [-32600, -32700],
  403: [-32600],
  404: [-32001],
  405: [-32000],
  406: [-32600],
  413: [-32600],
  415: [-32600],
  503: [-32000],
};

// ---------------------------------------------------------------------------------------------
// Protocol eras. An event is served by the rules of 2026-07-28 ("modern") or of the 2025 revisions
// ("legacy"), told apart as the server must: by the MCP-Protocol-Version header, and by the version
// a message's `params._meta` claims. For modern traffic the answer is known from the event alone.

const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];
const LEGACY_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/** What `server/discover` and a `-32022` list, newest first. */
const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
const SERVER_NAME = "prometheus-mcp-lambda";
const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
/** The methods 2026-07-28 serves here; every other one is 404 `-32601`. */
const SERVED_METHODS = ["server/discover", "tools/list", "tools/call"];
/**
 * Served too where the MCP Apps view is (src/views/): it comes with the charts group, which every
 * configuration here serves but PYTHON_COMPAT's (its default tools are the five).
 */
const VIEW_METHODS = ["resources/list", "resources/templates/list", "resources/read"];
/** The body member `Mcp-Name` mirrors, by method (only these methods name something). */
const NAME_SOURCES = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
]);
/** Codes of a JSON-RPC error that only the HTTP layer or the envelope checks may give, never a served method. */
const NOT_FROM_A_SERVED_METHOD = [-32700, -32600, -32601, -32020, -32022];
/** Refusals made before the body is read (origin, size, Content-Type, Accept): any era. */
const REFUSED_BEFORE_THE_BODY = new Set([403, 406, 413, 415]);
const REQUEST_TIMEOUT = -32001;

/** What 2026-07-28 answers one payload. `traceId`: the trace id its request line must log. */
export type ModernExpectation =
  | { kind: "accepted" }
  | {
      kind: "refused";
      status: number;
      code: number;
      id: unknown;
      why: string;
      /** For `-32022`: the version asked for. */
      requested?: string;
      traceId?: string;
    }
  | { kind: "served"; method: string; id: unknown; traceId: string | undefined }
  /** Any one of `options` (a request whose id is an integer beyond 2^53 - 1: see expectModern). */
  | { kind: "either"; why: string; options: ModernExpectation[] };

/** How the server must serve an event: `none` for what no JSON-RPC rule applies to (GET, /health…). */
export type Traffic =
  | { era: "modern"; expected: ModernExpectation }
  | { era: "legacy"; unsupportedVersion?: string }
  | { era: "none" };

/** An HTTP event as the server reads it: HTTP API (v2, Function URL) before REST (v1). */
interface HttpRead {
  method: string;
  path: string;
  /** Lower-case names; values with CR, LF or NUL dropped; REST multi-value headers win, joined. */
  headers: Record<string, string>;
  body: string;
}

function isHeaderValue(value: unknown): value is string {
  return typeof value === "string" && !/[\r\n\0]/.test(value);
}

function readHttp(event: unknown): HttpRead {
  const httpApi =
    isObject(ownPath(event, "requestContext", "http")) && typeof own(event, "rawPath") === "string";
  const method = httpApi ? ownPath(event, "requestContext", "http", "method") : own(event, "httpMethod");
  const headers: Record<string, string> = Object.create(null);
  const single = own(event, "headers");
  if (isObject(single)) {
    for (const [name, value] of Object.entries(single)) {
      if (isHeaderValue(value)) headers[name.toLowerCase()] = value;
    }
  }
  const multi = httpApi ? undefined : own(event, "multiValueHeaders");
  if (isObject(multi)) {
    for (const [name, values] of Object.entries(multi)) {
      if (!Array.isArray(values)) continue;
      const kept = Array.from(values).filter(isHeaderValue);
      if (kept.length > 0) headers[name.toLowerCase()] = kept.join(", ");
    }
  }
  const raw = own(event, "body");
  let body = "";
  if (typeof raw === "string" && raw !== "") {
    body = own(event, "isBase64Encoded") === true ? Buffer.from(raw, "base64").toString("utf8") : raw;
  }
  return {
    method:
      method === undefined || method === null
        ? "GET"
        : typeof method === "string"
          ? method.toUpperCase()
          : "",
    path: httpApi ? (own(event, "rawPath") as string) : (text(own(event, "path")) ?? "/"),
    headers,
    body,
  };
}

function metaOf(message: unknown): unknown {
  return own(own(message, "params"), "_meta");
}

/** A message whose `_meta` claims a protocol version (any value) that is not a legacy one. */
function claimsModernEra(message: unknown): boolean {
  const meta = metaOf(message);
  if (!isObject(meta) || !Object.hasOwn(meta, META_KEYS.protocolVersion)) return false;
  const claimed = meta[META_KEYS.protocolVersion];
  return typeof claimed !== "string" || !LEGACY_VERSIONS.includes(claimed);
}

function claimsModernEraAnywhere(payload: unknown): boolean {
  return Array.isArray(payload) ? payload.some(claimsModernEra) : claimsModernEra(payload);
}

/** Which era serves the event, and for 2026-07-28 what it must answer. */
export function trafficOf(event: unknown, settings: FuzzSettings): Traffic {
  const served = settings.pythonCompat ? SERVED_METHODS : [...SERVED_METHODS, ...VIEW_METHODS];
  if (!isHttpShaped(event)) {
    return claimsModernEraAnywhere(event)
      ? { era: "modern", expected: expectModern(event, undefined, event, served) }
      : { era: "legacy" };
  }
  const request = readHttp(event);
  if (routeOf(request.path) !== "mcp" || request.method !== "POST") return { era: "none" };
  let payload: unknown;
  let parsed = true;
  try {
    payload = JSON.parse(request.body);
  } catch {
    parsed = false;
  }
  const rawVersion = request.headers["mcp-protocol-version"];
  const version = rawVersion === undefined || ows(rawVersion) === "" ? undefined : ows(rawVersion);
  const modernHeader = version !== undefined && MODERN_VERSIONS.includes(version);
  if (modernHeader || (parsed && claimsModernEraAnywhere(payload))) {
    return {
      era: "modern",
      expected: parsed
        ? expectModern(payload, request.headers, parseExact(request.body), served)
        : { kind: "refused", status: 400, code: -32700, id: null, why: "a body that is not JSON" },
    };
  }
  return version === undefined || LEGACY_VERSIONS.includes(version)
    ? { era: "legacy" }
    : { era: "legacy", unsupportedVersion: version };
}

type Classified = { kind: "request" | "notification" | "response" } | { kind: "invalid"; id: unknown };

/** What JSON-RPC 2.0 (with the MCP SDK's schemas) makes of one value. */
function classifyMessage(value: unknown): Classified {
  if (!isObject(value)) return { kind: "invalid", id: null };
  const id = isRequestId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") return { kind: "invalid", id };
  if (!Object.hasOwn(value, "method")) {
    const response =
      (Object.hasOwn(value, "result") || Object.hasOwn(value, "error")) &&
      (isJSONRPCResultResponse(value) ||
        isJSONRPCErrorResponse(value) ||
        (value.id === null && isObject(value.error) && typeof value.error.code === "number"));
    return response ? { kind: "response" } : { kind: "invalid", id };
  }
  if (typeof value.method !== "string" || value.method === "") return { kind: "invalid", id };
  if (Object.hasOwn(value, "id") && !isRequestId(value.id)) return { kind: "invalid", id: null };
  const params = value.params;
  if (params !== undefined && !isObject(params)) return { kind: "invalid", id };
  if (params !== undefined && params._meta !== undefined && !isObject(params._meta)) {
    return { kind: "invalid", id };
  }
  if (Object.hasOwn(value, "id"))
    return isJSONRPCRequest(value) ? { kind: "request" } : { kind: "invalid", id };
  return isJSONRPCNotification(value) ? { kind: "notification" } : { kind: "invalid", id };
}

/**
 * A header's value as its sender meant it: trimmed, visible ASCII (space and tab allowed) only, and a
 * `=?base64?…?=` sentinel (where allowed) decoded as base64 UTF-8; undefined when malformed.
 */
function meantHeaderValue(raw: string, sentinel: boolean): string | undefined {
  const value = ows(raw);
  if (!/^[\x20-\x7E\t]*$/.test(value)) return undefined;
  const prefix = "=?base64?";
  const suffix = "?=";
  if (!sentinel || value.length < prefix.length + suffix.length) return value;
  if (!value.startsWith(prefix) || !value.endsWith(suffix)) return value;
  const encoded = value.slice(prefix.length, -suffix.length);
  // RFC 4648 base64: the alphabet, padded to a multiple of four.
  if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return undefined;
  const bytes = Buffer.from(encoded, "base64");
  const decoded = bytes.toString("utf8");
  // Well-formed UTF-8 comes back byte for byte (a replacement character would not); a BOM is kept.
  return Buffer.from(decoded, "utf8").equals(bytes) ? decoded : undefined;
}

/** W3C Trace Context: the trace id of a well-formed `traceparent` (at most 512 characters). */
function traceIdOf(traceparent: unknown): string | undefined {
  if (typeof traceparent !== "string" || traceparent.length > 512) return undefined;
  const [version = "", traceId = "", parentId = "", flags = "", ...rest] = traceparent.split("-");
  if (!/^[0-9a-f]{2}$/.test(version) || version === "ff") return undefined;
  if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId)) return undefined;
  if (!/^[0-9a-f]{16}$/.test(parentId) || /^0+$/.test(parentId)) return undefined;
  if (!/^[0-9a-f]{2}$/.test(flags)) return undefined;
  if (rest.length > 0 && (version === "00" || /[\n\r\u2028\u2029]/.test(rest.join("-")))) return undefined;
  return traceId;
}

/** What is missing or malformed in a 2026-07-28 request's `_meta` envelope. */
function envelopeProblem(meta: unknown): string | undefined {
  if (!isObject(meta)) return "no params._meta";
  if (typeof meta[META_KEYS.protocolVersion] !== "string") return "no protocol version string";
  if (!isObject(meta[META_KEYS.clientCapabilities])) return "no client capabilities object";
  const info = own(meta, META_KEYS.clientInfo);
  if (
    info !== undefined &&
    !(isObject(info) && typeof info.name === "string" && typeof info.version === "string")
  ) {
    return "a malformed client info";
  }
  const level = own(meta, META_KEYS.logLevel);
  if (level !== undefined && !(typeof level === "string" && LOG_LEVELS.includes(level))) {
    return "an unknown log level";
  }
  return undefined;
}

/** How `Mcp-Method` / `Mcp-Name` disagree with the request (missing, malformed, different), if they do. */
function headerMismatch(
  headers: Record<string, string>,
  method: string,
  params: unknown,
): string | undefined {
  const methodHeader = headers["mcp-method"];
  if (methodHeader === undefined) return "no Mcp-Method header";
  if (meantHeaderValue(methodHeader, false) !== method) return "an Mcp-Method header that is not the method";
  const source = NAME_SOURCES.get(method);
  if (source === undefined) return undefined;
  const bodyValue = own(params, source);
  const bodyName = typeof bodyValue === "string" ? bodyValue : undefined;
  const nameHeader = headers["mcp-name"];
  if (nameHeader === undefined) return bodyName === undefined ? undefined : "no Mcp-Name header";
  const sent = meantHeaderValue(nameHeader, true);
  if (sent === undefined) return "a malformed Mcp-Name header";
  return sent === bodyName ? undefined : `an Mcp-Name header that is not params.${source}`;
}

/**
 * What 2026-07-28 answers `payload`, checked in this order: one message (a batch, anything but a
 * request: -32600, a notification: accepted), the claimed version against MCP-Protocol-Version
 * (-32020) and against the versions served (-32022), the envelope (-32602), Mcp-Method and Mcp-Name
 * (-32020), the method (404 -32601 unless `served`). `headers` is undefined for a direct invocation. `exact` is the
 * payload as parseExact reads it (for a direct invocation, the payload itself).
 *
 * A message whose id is an integer beyond 2^53 - 1 in magnitude (JSON.parse cannot hold it exactly:
 * 9007199254740993 reads as 9007199254740992) may be refused -32600 with id null, or have its id echoed
 * exactly (refused -32600, or served as any other id would be); never answered with another id.
 */
function expectModern(
  payload: unknown,
  headers: Record<string, string> | undefined,
  exact: unknown,
  served: readonly string[],
): ModernExpectation {
  const refused = (status: number, code: number, id: unknown, why: string): ModernExpectation => ({
    kind: "refused",
    status,
    code,
    id,
    why,
  });
  const exactId =
    isObject(payload) && Object.hasOwn(payload, "id") ? unsafeIntegerOf(own(exact, "id")) : undefined;
  if (exactId !== undefined) {
    // The same message with the id as the string standing for it, so that it is judged as any other id.
    const standIn = { ...(payload as Json), id: exactId };
    const why = "an id beyond 2^53 - 1";
    return {
      kind: "either",
      why,
      options: [
        refused(400, -32600, null, `${why}, refused`),
        refused(400, -32600, exactId, `${why}, refused with the id echoed exactly`),
        // (Judged once: the stand-in's id is not looked at again.)
        expectModern(standIn, headers, null, served),
      ],
    };
  }
  if (Array.isArray(payload)) return refused(400, -32600, null, "a batch");
  const classified = classifyMessage(payload);
  if (classified.kind === "invalid") return refused(400, -32600, classified.id, "not a JSON-RPC message");
  if (classified.kind === "response") return refused(400, -32600, null, "a response");
  if (classified.kind === "notification") return { kind: "accepted" };
  const request = payload as Json;
  const { id, method, params } = request;
  const meta = metaOf(request);
  const claimed = own(meta, META_KEYS.protocolVersion);
  if (typeof claimed === "string") {
    if (headers !== undefined) {
      const raw = headers["mcp-protocol-version"];
      if (raw === undefined || meantHeaderValue(raw, false) !== claimed) {
        return refused(400, -32020, id, "a version header other than the _meta version");
      }
    }
    if (!MODERN_VERSIONS.includes(claimed)) {
      return { ...refused(400, -32022, id, "a version not served"), requested: claimed } as ModernExpectation;
    }
  }
  const problem = envelopeProblem(meta);
  if (problem !== undefined) return refused(400, -32602, id, problem);
  const mismatch = headers === undefined ? undefined : headerMismatch(headers, method as string, params);
  if (mismatch !== undefined) return refused(400, -32020, id, mismatch);
  const traceId = traceIdOf(own(meta, "traceparent"));
  if (served.includes(method as string)) return { kind: "served", method: method as string, id, traceId };
  return { ...refused(404, -32601, id, "an unknown method"), traceId } as ModernExpectation;
}

function describeExpected(expected: ModernExpectation): string {
  switch (expected.kind) {
    case "accepted":
      return "accepted (202, or null for a direct invocation)";
    case "refused":
      return `${expected.status} ${expected.code} for ${expected.why} (id ${short(describeId(expected.id), 60)})`;
    case "served":
      return `a ${expected.method} reply (id ${short(describeId(expected.id), 60)})`;
    case "either":
      return expected.options.map(describeExpected).join(" or ");
  }
}

/**
 * The problems of an answer against what was due; for `either`, none when one option fits, else the
 * first option's (the preferred answer).
 */
function againstExpected(expected: ModernExpectation, check: (one: ModernExpectation) => string[]): string[] {
  if (expected.kind !== "either") return check(expected);
  let first: string[] | undefined;
  for (const option of expected.options) {
    const problems = againstExpected(option, check);
    if (problems.length === 0) return problems;
    first ??= problems;
  }
  return (first ?? []).map((problem) => `${problem} (nor any of: ${describeExpected(expected)})`);
}

/** The trace ids the request line may log for what was due (undefined: none). */
function dueTraceIds(expected: ModernExpectation): (string | undefined)[] {
  switch (expected.kind) {
    case "accepted":
      return [undefined];
    case "either":
      return expected.options.flatMap(dueTraceIds);
    default:
      return [expected.traceId];
  }
}

/** Middy's answer when the deadline came first: -32001, id null (HTTP 200). */
function isDeadlineAnswer(reply: unknown, status: number | undefined): boolean {
  return (
    (status === undefined || status === 200) &&
    errorCode(reply) === REQUEST_TIMEOUT &&
    own(reply, "id") === null
  );
}

/** A 2026-07-28 reply (an HTTP body, or a direct invocation's result) against what was due. */
function checkModernReply(expected: ModernExpectation, reply: unknown, status: number | undefined): string[] {
  if (expected.kind === "either") {
    return againstExpected(expected, (one) => checkModernReply(one, reply, status));
  }
  const at = status === undefined ? "direct" : `HTTP ${status}`;
  const got = short(describe(reply), 300);
  if (status !== undefined && REFUSED_BEFORE_THE_BODY.has(status)) {
    const allowed = MCP_STATUS_CODES[status];
    const code = errorCode(reply);
    return Array.isArray(allowed) && code !== undefined && allowed.includes(code)
      ? []
      : [`contract: HTTP ${status} with JSON-RPC code ${code}: ${got}`];
  }
  if (Array.isArray(reply))
    return [`modern: a batch reply (${at}) where ${describeExpected(expected)} was due`];
  const problems = replyProblems(reply).map((problem) => `jsonrpc: ${problem}: ${got}`);
  if (isInternalError(reply) && status !== 500) problems.push(`fault: -32603 Internal error at ${at}`);
  if (isDeadlineAnswer(reply, status)) return problems;
  const code = errorCode(reply);
  const id = own(reply, "id");
  switch (expected.kind) {
    case "accepted":
      problems.push(`modern: a notification answered ${at}: ${got}`);
      break;
    case "refused": {
      if (
        (status !== undefined && status !== expected.status) ||
        code !== expected.code ||
        !sameId(id, expected.id)
      ) {
        problems.push(`modern: ${at} ${code} where ${describeExpected(expected)} was due: ${got}`);
      } else if (expected.requested !== undefined) {
        problems.push(...unsupportedVersionProblems(reply, expected.requested));
      }
      break;
    }
    case "served": {
      if (status !== undefined && status !== 200 && status !== 500) {
        problems.push(`modern: ${at} where ${describeExpected(expected)} was due: ${got}`);
      }
      if (!sameId(id, expected.id)) {
        problems.push(`modern: a ${expected.method} reply with another id: ${got}`);
      }
      if (code === undefined) problems.push(...modernResultProblems(expected.method, own(reply, "result")));
      else if (NOT_FROM_A_SERVED_METHOD.includes(code) || expected.method === "server/discover") {
        problems.push(`modern: ${expected.method} answered ${at} with ${code}: ${got}`);
      }
      break;
    }
  }
  return problems;
}

/** `-32022` names the versions served and (cut, when long) the one asked for. */
function unsupportedVersionProblems(reply: unknown, requested: string): string[] {
  const data = own(own(reply, "error"), "data");
  const supported = own(data, "supported");
  const echoed = own(data, "requested");
  const problems: string[] = [];
  if (!Array.isArray(supported) || supported.join() !== SUPPORTED_VERSIONS.join()) {
    problems.push(`modern: -32022 lists ${short(describe(supported), 120)} as supported`);
  }
  const fits =
    echoed === requested ||
    (typeof echoed === "string" &&
      echoed.endsWith("…") &&
      echoed.length <= 200 &&
      requested.startsWith(echoed.slice(0, -1)));
  if (!fits) problems.push(`modern: -32022 names ${short(describe(echoed), 120)} as requested`);
  return problems;
}

/** A 2026-07-28 result: complete, naming the server; discover and tools/list what they must be. */
function modernResultProblems(method: string, result: unknown): string[] {
  const problems: string[] = [];
  if (own(result, "resultType") !== "complete") {
    problems.push(
      `modern: a ${method} result without resultType "complete": ${short(describe(result), 200)}`,
    );
  }
  const info = ownPath(result, "_meta", SERVER_INFO_KEY);
  if (own(info, "name") !== SERVER_NAME || typeof own(info, "version") !== "string") {
    problems.push(`modern: a ${method} result whose _meta names no server: ${short(describe(info), 200)}`);
  }
  if (method === "server/discover") {
    const versions = own(result, "supportedVersions");
    if (!Array.isArray(versions) || versions.join() !== SUPPORTED_VERSIONS.join()) {
      problems.push(`modern: server/discover lists ${short(describe(versions), 200)}`);
    }
    if (!isObject(ownPath(result, "capabilities", "tools")))
      problems.push("modern: server/discover offers no tools");
  }
  if (method === "tools/list" && !Array.isArray(own(result, "tools"))) {
    problems.push(`modern: a tools/list result without tools: ${short(describe(result), 200)}`);
  }
  if (method === "tools/call" && !Array.isArray(own(result, "content"))) {
    problems.push(`modern: a tools/call result without content: ${short(describe(result), 200)}`);
  }
  const listed = { "resources/list": "resources", "resources/read": "contents" }[method];
  if (listed !== undefined && !Array.isArray(own(result, listed))) {
    problems.push(`modern: a ${method} result without ${listed}: ${short(describe(result), 200)}`);
  }
  return problems;
}

/** Every problem with one observation; empty when the handler kept every invariant. */
export function check(
  observation: Observation,
  settings: FuzzSettings,
  traffic: Traffic = trafficOf(observation.input.event, settings),
): string[] {
  const problems: string[] = [];
  const { input, result } = observation;
  if (observation.threw) {
    problems.push(`threw: the handler rejected with ${short(describe(observation.thrown))}`);
    return problems;
  }

  if (observation.hung) {
    problems.push(
      `hung: no answer ${HANG_GRACE_MS / 1000} s past the ${input.remainingMs} ms remaining (its deadline 500 ms before)`,
    );
    return problems;
  }

  const http = isHttpShaped(input.event);
  let answerText: string;
  if (http) {
    problems.push(...checkHttp(input.event, result, settings, traffic), ...checkHttpIds(input.event, result));
    // The session store (memory, or dynalite on 127.0.0.1) is up for the whole run: with time to
    // spare, it has no reason to be unavailable.
    if (own(result, "statusCode") === 503 && input.remainingMs >= STORE_SURELY_ANSWERS_MS) {
      problems.push(
        `unavailable: 503 with ${input.remainingMs} ms left: ${short(String(own(result, "body")))}`,
      );
    }
    const headers = own(result, "headers");
    answerText = `${String(own(result, "body"))}\n${isObject(headers) ? Object.values(headers).join("\n") : ""}`;
  } else {
    problems.push(...checkDirect(result, settings, traffic), ...checkDirectIds(input.event, result));
    try {
      answerText = JSON.stringify(result) ?? "";
    } catch {
      answerText = "";
    }
  }

  const sent = sentText(input.event);
  for (const marker of secretsAndInternals()) {
    if (answerText.includes(marker) && !sent.includes(marker)) {
      problems.push(
        `leak: the answer carries ${JSON.stringify(marker)}: ${short(around(answerText, marker))}`,
      );
    }
  }

  const refusedEarly = http && REFUSED_BEFORE_THE_BODY.has(own(result, "statusCode") as number);
  problems.push(...checkLogs(observation, http, traffic, refusedEarly));
  return problems;
}

function around(haystack: string, needle: string): string {
  const at = haystack.indexOf(needle);
  return haystack.slice(Math.max(0, at - 120), at + needle.length + 120);
}

function checkHttp(event: unknown, result: unknown, settings: FuzzSettings, traffic: Traffic): string[] {
  if (!isObject(result)) return [`shape: an HTTP event got ${short(describe(result))}`];
  const problems: string[] = [];
  const { statusCode, headers, body } = result;
  if (!Number.isInteger(statusCode) || (statusCode as number) < 100 || (statusCode as number) > 599) {
    problems.push(`shape: statusCode ${short(describe(statusCode))}`);
  }
  if (!isObject(headers)) problems.push(`shape: headers ${short(describe(headers))}`);
  else {
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== "string") problems.push(`shape: header ${name} is ${short(describe(value))}`);
      else if (/[\r\n\0]/.test(value))
        problems.push(`header-injection: header ${name} = ${JSON.stringify(value)}`);
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
        problems.push(`shape: header name ${JSON.stringify(name)}`);
    }
  }
  if (typeof body !== "string") {
    problems.push(`shape: body ${short(describe(body))}`);
    return problems;
  }
  if (problems.length > 0) return problems;
  const status = statusCode as number;
  const headerMap = headers as Record<string, string>;
  const contentType = Object.entries(headerMap).find(([name]) => name.toLowerCase() === "content-type")?.[1];

  if (status === 500) problems.push(`fault: HTTP 500 ${short(body)}`);
  if (traffic.era === "modern") {
    problems.push(...checkModernHttp(traffic.expected, status, headerMap, body, contentType));
    return problems;
  }
  if (traffic.era === "legacy" && traffic.unsupportedVersion !== undefined) {
    problems.push(...checkUnsupportedLegacyVersion(traffic.unsupportedVersion, status, body));
  }
  const shape = bodyShape(status, body, contentType);
  problems.push(...shape.problems);
  if (!("parsed" in shape)) return problems;
  const parsed = shape.parsed;

  const route = routeOf(pathOf(event));
  const method = methodOf(event);
  if (route === "health" && method === "GET") {
    if (status !== 200 || own(parsed, "status") !== "healthy") {
      problems.push(`contract: GET /health answered ${status} ${short(body)}`);
    }
    return problems;
  }
  if (route !== "mcp") {
    if (status !== 404 || own(parsed, "error") !== "Not found") {
      problems.push(`contract: ${route} route answered ${status} ${short(body)}`);
    }
    return problems;
  }
  if (settings.pythonCompat && status === 400 && own(parsed, "error") === "Invalid JSON in request body") {
    return problems;
  }
  if (settings.pythonCompat && status === 200 && isObject(parsed) && Object.keys(parsed).length === 1) {
    if (parsed.jsonrpc === "2.0") return problems;
  }
  const allowed = MCP_STATUS_CODES[status];
  if (allowed === undefined && status !== 500) problems.push(`contract: /mcp answered status ${status}`);
  if (Array.isArray(parsed)) {
    if (status !== 200) problems.push(`contract: a batch answered ${status}`);
    if (parsed.length === 0) problems.push("contract: an empty batch reply");
    parsed.forEach((reply, index) => {
      for (const problem of replyProblems(reply)) problems.push(`jsonrpc: batch entry ${index}: ${problem}`);
      if (isInternalError(reply)) problems.push(`fault: batch entry ${index} is -32603 Internal error`);
    });
    return problems;
  }
  for (const problem of replyProblems(parsed)) problems.push(`jsonrpc: ${problem}: ${short(body)}`);
  if (isInternalError(parsed) && status !== 500)
    problems.push(`fault: -32603 Internal error at HTTP ${status}`);
  const code = errorCode(parsed);
  if (status === 400 && code === -32602 && isUnstorableInitialize(parsed)) return problems;
  if (code !== undefined && Array.isArray(allowed) && !allowed.includes(code)) {
    problems.push(`contract: HTTP ${status} with JSON-RPC code ${code}: ${short(body)}`);
  }
  if (allowed === "any-but-invalid" && (code === -32600 || code === -32700)) {
    problems.push(`contract: HTTP 200 with JSON-RPC code ${code}: ${short(body)}`);
  }
  if (status === 503 && !Object.keys(headerMap).some((name) => name.toLowerCase() === "retry-after")) {
    problems.push("contract: 503 without Retry-After");
  }
  return problems;
}

/** A POST to /mcp of 2026-07-28: the answer its event was due, and never a session. */
function checkModernHttp(
  expected: ModernExpectation,
  status: number,
  headers: Record<string, string>,
  body: string,
  contentType: string | undefined,
): string[] {
  if (expected.kind === "either") {
    return againstExpected(expected, (one) => checkModernHttp(one, status, headers, body, contentType));
  }
  const problems: string[] = [];
  if (Object.keys(headers).some((name) => name.toLowerCase() === "mcp-session-id")) {
    problems.push(`session: a 2026-07-28 answer (HTTP ${status}) carries Mcp-Session-Id`);
  }
  const shape = bodyShape(status, body, contentType);
  problems.push(...shape.problems);
  if (status === 202 || status === 204) {
    if (status !== 202 || expected.kind !== "accepted") {
      problems.push(`modern: HTTP ${status} where ${describeExpected(expected)} was due`);
    }
    return problems;
  }
  if ("parsed" in shape) problems.push(...checkModernReply(expected, shape.parsed, status));
  return problems;
}

/**
 * What every answer's body must be: empty without a Content-Type for 202 and 204, else JSON within
 * Lambda's limit (then `parsed` is there to check further).
 */
function bodyShape(
  status: number,
  body: string,
  contentType: string | undefined,
): { problems: string[]; parsed?: unknown } {
  const problems: string[] = [];
  if (status === 202 || status === 204) {
    if (body !== "") problems.push(`shape: ${status} with a body ${short(body)}`);
    if (contentType !== undefined) problems.push(`shape: ${status} with Content-Type ${contentType}`);
    return { problems };
  }
  if (contentType !== "application/json") problems.push(`shape: Content-Type ${contentType} on ${status}`);
  let parsed: unknown;
  try {
    parsed = parseExact(body);
  } catch {
    problems.push(`shape: body is not JSON: ${short(body)}`);
    return { problems };
  }
  if (Buffer.byteLength(body) > RESPONSE_LIMIT_BYTES) problems.push(`size: body of ${body.length} chars`);
  return { problems, parsed };
}

/** A legacy POST whose MCP-Protocol-Version names no revision served: 400 -32600, before its body is read. */
function checkUnsupportedLegacyVersion(version: string, status: number, body: string): string[] {
  if (REFUSED_BEFORE_THE_BODY.has(status)) return [];
  let reply: unknown;
  try {
    reply = JSON.parse(body);
  } catch {
    reply = undefined;
  }
  if (isDeadlineAnswer(reply, status) || (status === 400 && errorCode(reply) === -32600)) return [];
  return [
    `legacy: MCP-Protocol-Version ${short(JSON.stringify(version), 60)} (no revision served) answered ${status}: ${short(body)}`,
  ];
}

/** The request line names the era that served the event, and the trace id of its `traceparent`. */
function checkEraLogged(entry: Json, http: boolean, traffic: Traffic, refusedEarly: boolean): string[] {
  const problems: string[] = [];
  const era = entry.era;
  const due = traffic.era === "none" ? undefined : traffic.era;
  if (era !== undefined && era !== due) {
    problems.push(`log: era ${short(describe(era), 40)} logged for ${traffic.era} traffic`);
  }
  if (era === undefined && (http ? traffic.era === "modern" && !refusedEarly : due !== undefined)) {
    problems.push(`log: no era logged for ${traffic.era} traffic`);
  }
  const traces = traffic.era === "modern" ? dueTraceIds(traffic.expected) : [undefined];
  const trace = traces.find((id) => id !== undefined);
  const logged = entry.trace_id;
  if (logged !== undefined && !traces.includes(logged as string)) {
    problems.push(`log: trace id ${short(describe(logged), 60)} logged where ${trace ?? "none"} was due`);
  }
  if (logged === undefined && !traces.includes(undefined) && !refusedEarly) {
    problems.push(`log: the trace id of a well-formed traceparent (${trace}) was not logged`);
  }
  return problems;
}

/**
 * `initialize` params a session cannot keep are answered 400 `-32602` (docs/protocol.md, "Sessions": a choice of
 * the sessions layer; the contract's case table would give any -32602 a 200).
 */
function isUnstorableInitialize(reply: unknown): boolean {
  const message = own(own(reply, "error"), "message");
  return typeof message === "string" && /^Invalid params for initialize: [\s\S]*session/.test(message);
}

function isRequestId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
}

// ---------------------------------------------------------------------------------------------
// Ids beyond 2^53. JSON.parse reads 9007199254740993 as 9007199254740992: an answer echoing the
// latter for the former would pass a comparison of parsed values. The oracle reads JSON text with
// parseExact instead, where such a number is a string holding its exact value, and compares ids by
// idKey: exact values for numbers, whatever their spelling (1e20 and 100000000000000000000 are one id).

/** Starts the string parseExact puts for an integer literal beyond 2^53 - 1; its exact decimal value follows. */
const UNSAFE_INTEGER = "\u0000unsafe-integer:";

/** The exact decimal value of a JSON number literal (no exponent, no trailing fraction zeros). */
export function exactDecimal(literal: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) throw new Error(`not a JSON number: ${literal}`);
  const [, sign = "", whole = "", fraction = "", exponent = "0"] = match;
  let digits = whole + fraction;
  const point = whole.length + Number(exponent);
  let integer: string;
  let decimals: string;
  if (point >= digits.length) {
    digits += "0".repeat(point - digits.length);
    integer = digits;
    decimals = "";
  } else if (point <= 0) {
    integer = "0";
    decimals = "0".repeat(-point) + digits;
  } else {
    integer = digits.slice(0, point);
    decimals = digits.slice(point);
  }
  integer = integer.replace(/^0+(?=\d)/, "");
  decimals = decimals.replace(/0+$/, "");
  const body = decimals === "" ? integer : `${integer}.${decimals}`;
  return /^[0.]+$/.test(body) ? "0" : sign + body;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * JSON.parse, except that a number literal JSON.parse would read as an integer beyond 2^53 - 1 in
 * magnitude becomes the string UNSAFE_INTEGER + its exact decimal value (see unsafeIntegerOf). Throws
 * where JSON.parse throws.
 */
export function parseExact(text: string): unknown {
  // Such a literal has 16 digits in a row or an exponent.
  if (!/\d{16}|\d[eE]/.test(text)) return JSON.parse(text);
  let rewritten = "";
  let copied = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x22) break;
        i += d === 0x5c ? 2 : 1;
      }
      i++;
    } else if (c === 0x2d || isDigit(c)) {
      const start = i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        // Digits, ".", "e", "E", "+", "-"
        if (!(isDigit(d) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d)) break;
        i++;
      }
      const literal = text.slice(start, i);
      const value = Number(literal);
      if (
        Number.isInteger(value) &&
        !Number.isSafeInteger(value) &&
        /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(literal)
      ) {
        rewritten += text.slice(copied, start) + JSON.stringify(UNSAFE_INTEGER + exactDecimal(literal));
        copied = i;
      }
    } else {
      i++;
    }
  }
  return JSON.parse(copied === 0 ? text : rewritten + text.slice(copied));
}

/** An id that is an integer beyond 2^53 - 1 in magnitude, as parseExact writes it; undefined for any other. */
export function unsafeIntegerOf(id: unknown): string | undefined {
  if (typeof id === "string") return id.startsWith(UNSAFE_INTEGER) ? id : undefined;
  if (typeof id === "number" && Number.isInteger(id) && !Number.isSafeInteger(id)) {
    return UNSAFE_INTEGER + BigInt(id).toString();
  }
  return undefined;
}

/** What an id is compared by: its type and exact value. */
export function idKey(id: unknown): string {
  if (typeof id === "string") {
    return id.startsWith(UNSAFE_INTEGER) ? `number ${id.slice(UNSAFE_INTEGER.length)}` : `string ${id}`;
  }
  if (typeof id === "number") {
    return Number.isInteger(id) ? `number ${BigInt(id).toString()}` : `number ${String(id)}`;
  }
  return id === null ? "null" : `other ${describe(id)}`;
}

/** The same id: a string for the same string, a number of the same exact value (as parseExact reads it). */
export function sameId(a: unknown, b: unknown): boolean {
  return idKey(a) === idKey(b);
}

/** An id for a report: an integer beyond 2^53 - 1 as its exact digits. */
function describeId(id: unknown): string {
  if (typeof id === "string" && id.startsWith(UNSAFE_INTEGER)) return id.slice(UNSAFE_INTEGER.length);
  return JSON.stringify(id) ?? "undefined";
}

/**
 * Every reply of a direct invocation carries the id of one of its requests (or null), with its type
 * and exact value (see sameId), and no id is answered more often than the payload's messages carry it.
 */
function checkDirectIds(payload: unknown, result: unknown): string[] {
  const entries = Array.isArray(payload) ? payload : [payload];
  const asked = new Map<string, number>();
  for (const entry of entries) {
    const id = own(entry, "id");
    if (isRequestId(id)) asked.set(idKey(id), (asked.get(idKey(id)) ?? 0) + 1);
  }
  const replies = Array.isArray(result)
    ? result
    : isObject(result) && Object.hasOwn(result, "id")
      ? [result]
      : [];
  const problems: string[] = [];
  const answered = new Map<string, number>();
  for (const reply of replies) {
    const id = own(reply, "id");
    if (id === null || id === undefined) continue;
    const key = idKey(id);
    const times = (answered.get(key) ?? 0) + 1;
    answered.set(key, times);
    const carried = asked.get(key) ?? 0;
    if (carried === 0) {
      problems.push(
        `correlation: a reply with id ${short(describeId(id), 80)}, which no request of the payload has`,
      );
    } else if (times === carried + 1) {
      problems.push(
        `correlation: more than ${carried} replies with id ${short(describeId(id), 80)}, which ${carried} message(s) of the payload carry`,
      );
    }
  }
  if (Array.isArray(payload) && Array.isArray(result) && result.length > payload.length) {
    problems.push(`correlation: ${result.length} replies to a batch of ${payload.length}`);
  }
  return problems;
}

/** The same for a POST to /mcp: its body, decoded as the server decodes it, against the answer's body. */
function checkHttpIds(event: unknown, result: unknown): string[] {
  const body = own(event, "body");
  const answer = own(result, "body");
  if (typeof body !== "string" || typeof answer !== "string" || answer === "") return [];
  if (routeOf(pathOf(event)) !== "mcp") return [];
  const text = own(event, "isBase64Encoded") === true ? Buffer.from(body, "base64").toString("utf8") : body;
  try {
    return checkDirectIds(parseExact(text), parseExact(answer));
  } catch {
    return [];
  }
}

function checkDirect(result: unknown, settings: FuzzSettings, traffic: Traffic): string[] {
  const problems: string[] = [];
  let serialized: string | undefined;
  try {
    serialized = JSON.stringify(result);
  } catch (error) {
    return [`shape: a direct result Lambda cannot serialize (${describe(error)})`];
  }
  if (serialized !== undefined && Buffer.byteLength(serialized) > RESPONSE_LIMIT_BYTES) {
    problems.push(`size: a direct result of ${serialized.length} chars`);
  }
  if (traffic.era === "modern") {
    // 2026-07-28 has the spec's answers whatever PYTHON_COMPAT says: null for a notification.
    if (result === null && traffic.expected.kind === "accepted") return problems;
    problems.push(...checkModernReply(traffic.expected, result, undefined));
    return problems;
  }
  if (result === null) {
    if (settings.pythonCompat)
      problems.push('contract: null under PYTHON_COMPAT (expected {"jsonrpc":"2.0"})');
    return problems;
  }
  if (isObject(result) && Object.keys(result).length === 1 && result.jsonrpc === "2.0") {
    if (!settings.pythonCompat) problems.push('contract: {"jsonrpc":"2.0"} without PYTHON_COMPAT');
    return problems;
  }
  if (Array.isArray(result)) {
    if (result.length === 0) problems.push("contract: an empty batch reply");
    result.forEach((reply, index) => {
      for (const problem of replyProblems(reply))
        problems.push(`jsonrpc: direct batch entry ${index}: ${problem}`);
      if (isInternalError(reply))
        problems.push(`fault: direct batch entry ${index} is -32603 Internal error`);
    });
    return problems;
  }
  for (const problem of replyProblems(result)) {
    problems.push(`jsonrpc: direct result ${problem}: ${short(serialized)}`);
  }
  if (isInternalError(result)) problems.push(`fault: direct result is -32603 Internal error`);
  return problems;
}

function checkLogs(
  observation: Observation,
  http: boolean,
  traffic: Traffic,
  refusedEarly: boolean,
): string[] {
  const problems: string[] = [];
  const expectedPrincipal = http ? principalOf(observation.input.event) : undefined;
  const ownLogs = observation.sharedLogs !== true;
  let requestLines = 0;
  for (const line of observation.logs.join("").split("\n")) {
    if (line.trim() === "") continue;
    const bytes = Buffer.byteLength(line);
    let entry: Json;
    try {
      entry = JSON.parse(line) as Json;
    } catch {
      problems.push(`log: a line that is not JSON: ${short(line)}`);
      continue;
    }
    if (entry.level === "ERROR" || entry.level === "CRITICAL") {
      const error = own(entry, "error");
      problems.push(
        `fault: logged ${String(entry.message)}: ${short(String(own(error, "name")))}: ${short(String(own(error, "message") ?? entry.extra))} at ${short(String(own(error, "location")))}`,
      );
    }
    if (bytes > MAX_LOG_LINE_BYTES) problems.push(`log: a ${bytes}-byte ${String(entry.level)} line`);
    for (const marker of [
      AUTHORIZATION_MARKER,
      ODD_SECRET_MARKER,
      "test-secret-not-real",
      "ci-secret-not-real",
    ]) {
      if (line.includes(marker)) {
        problems.push(`log-leak: a log line carries ${marker}`);
      }
    }
    if (entry.message === "request" || entry.message === "direct invocation") {
      requestLines++;
      if (bytes > MAX_REQUEST_LOG_LINE_BYTES) problems.push(`log: a ${bytes}-byte request line`);
      const logged = entry.principal;
      if (typeof logged !== "string") problems.push("log: the request line names no principal");
      else if (!ownLogs) {
        // Several events' lines: whose is whose is unknown.
      } else if (
        expectedPrincipal === undefined
          ? logged !== "-"
          : !expectedPrincipal.startsWith(logged.replace(/…$/, ""))
      ) {
        problems.push(`log: principal ${short(logged, 60)} logged for ${short(expectedPrincipal, 60)}`);
      }
      if (!Array.isArray(entry.rpc)) problems.push("log: the request line has no rpc summary");
      if (ownLogs) problems.push(...checkEraLogged(entry, http, traffic, refusedEarly));
    }
  }
  // An HTTP request to /mcp or /health, or a direct invocation, is logged once (unless the handler failed).
  if (ownLogs && requestLines > 1) problems.push(`log: ${requestLines} request lines for one event`);
  return problems;
}

/** A value for a report: never String() on it (it may have no callable toString). */
export function describe(value: unknown, max = 2_000): string {
  const seen = new WeakSet<object>();
  let out: string | undefined;
  try {
    out = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === "symbol") return `Symbol(${item.description ?? ""})`;
      if (typeof item === "bigint") return `${item}n`;
      if (typeof item === "number" && !Number.isFinite(item)) return `${item}`;
      if (typeof item === "string" && item.length > 200)
        return `${item.slice(0, 200)}…(${item.length} chars)`;
      if (item instanceof Error) return { name: item.name, message: item.message, stack: item.stack };
      if (typeof item === "object" && item !== null) {
        if (seen.has(item)) return "[cycle]";
        seen.add(item);
        if (Object.getPrototypeOf(item) === null) return { "[null prototype]": { ...item } };
      }
      return item;
    });
  } catch (error) {
    out = `[unprintable: ${error instanceof Error ? error.message : typeof error}]`;
  }
  if (out === undefined) out = typeof value;
  return out.length <= max ? out : `${out.slice(0, max)}…(${out.length} chars)`;
}

/** A header value without the spaces and tabs around it: the only whitespace RFC 9110 lets go (not NBSP, BOM). */
function ows(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}
