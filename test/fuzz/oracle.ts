import { AUTHORIZATION_MARKER, type FuzzEvent } from "./arbitraries.js";

/**
 * The invariants every answer of the handler must meet, whatever the event. Each check returns the
 * problems it found, as "kind: detail" lines; the kind (before the colon) groups findings.
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
  elapsedMs: number;
  /** What it wrote to stdout and stderr while it ran. */
  logs: string[];
  /** The logs are those of several events run at once: only what holds for any line is checked. */
  sharedLogs?: boolean;
}

/** Lambda's remaining time less this is the deadline (src/app.ts DEADLINE_MARGIN_MS). */
const DEADLINE_MARGIN_MS = 500;
/** How late an answer may be: timers, GC and two shared cores. */
export const DEADLINE_SLACK_MS = Number(process.env.FUZZ_SLACK_MS ?? 400);
/** Lambda's response limit as the server enforces it (src/routes/ceiling.ts). */
const RESPONSE_LIMIT_BYTES = 6_000_000;
/** With this much time left, a session store that is up answers (its own cap is 3 s). */
const STORE_SURELY_ANSWERS_MS = 5_000;
/** The most bytes one request log line may take. */
export const MAX_REQUEST_LOG_LINE_BYTES = 4_096;
/** The most bytes any log line may take (an error's stack included). */
const MAX_LOG_LINE_BYTES = 16_384;

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

/** Every problem with one observation; empty when the handler kept every invariant. */
export function check(observation: Observation, settings: FuzzSettings): string[] {
  const problems: string[] = [];
  const { input, result } = observation;
  if (observation.threw) {
    problems.push(`threw: the handler rejected with ${short(describe(observation.thrown))}`);
    return problems;
  }

  const deadline = Math.max(0, input.remainingMs - DEADLINE_MARGIN_MS) + DEADLINE_SLACK_MS;
  if (observation.elapsedMs > deadline) {
    problems.push(
      `late: answered after ${Math.round(observation.elapsedMs)} ms with ${input.remainingMs} ms remaining (allowed ${deadline} ms)`,
    );
  }

  const http = isHttpShaped(input.event);
  let answerText: string;
  if (http) {
    problems.push(...checkHttp(input.event, result, settings), ...checkHttpIds(input.event, result));
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
    problems.push(...checkDirect(result, settings), ...checkDirectIds(input.event, result));
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

  problems.push(...checkLogs(observation, http));
  return problems;
}

function around(haystack: string, needle: string): string {
  const at = haystack.indexOf(needle);
  return haystack.slice(Math.max(0, at - 120), at + needle.length + 120);
}

function checkHttp(event: unknown, result: unknown, settings: FuzzSettings): string[] {
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
  if (status === 202 || status === 204) {
    if (body !== "") problems.push(`shape: ${status} with a body ${short(body)}`);
    if (contentType !== undefined) problems.push(`shape: ${status} with Content-Type ${contentType}`);
    return problems;
  }
  if (contentType !== "application/json") problems.push(`shape: Content-Type ${contentType} on ${status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    problems.push(`shape: body is not JSON: ${short(body)}`);
    return problems;
  }
  if (Buffer.byteLength(body) > RESPONSE_LIMIT_BYTES) problems.push(`size: body of ${body.length} chars`);

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

/**
 * `initialize` params a session cannot keep are answered 400 `-32602` (README, Sessions: a choice of
 * the sessions layer; the contract's case table would give any -32602 a 200).
 */
function isUnstorableInitialize(reply: unknown): boolean {
  const message = own(own(reply, "error"), "message");
  return typeof message === "string" && /^Invalid params for initialize: [\s\S]*session/.test(message);
}

function isRequestId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
}

/** Every reply of a direct invocation carries the id of one of its requests (or null), with its type. */
function checkDirectIds(payload: unknown, result: unknown): string[] {
  const entries = Array.isArray(payload) ? payload : [payload];
  const ids = new Set<unknown>();
  for (const entry of entries) {
    const id = own(entry, "id");
    if (isRequestId(id)) ids.add(id);
  }
  const replies = Array.isArray(result)
    ? result
    : isObject(result) && Object.hasOwn(result, "id")
      ? [result]
      : [];
  const problems: string[] = [];
  for (const reply of replies) {
    const id = own(reply, "id");
    if (id !== null && id !== undefined && !ids.has(id)) {
      problems.push(
        `correlation: a reply with id ${short(JSON.stringify(id), 80)}, which no request of the payload has`,
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
    return checkDirectIds(JSON.parse(text), JSON.parse(answer));
  } catch {
    return [];
  }
}

function checkDirect(result: unknown, settings: FuzzSettings): string[] {
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

function checkLogs(observation: Observation, http: boolean): string[] {
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
    for (const marker of [AUTHORIZATION_MARKER, "test-secret-not-real", "ci-secret-not-real"]) {
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
