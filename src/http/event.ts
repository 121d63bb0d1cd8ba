import { HTTP_API_LIMIT_MS, REST_API_LIMIT_MS } from "../deadline.js";
import { isPlainObject } from "../util/json.js";
import { cutText } from "../util/text.js";

/** An HTTP request, whatever Lambda event shape carried it. */
export interface HttpRequest {
  kind: "http";
  method: string;
  path: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as text, base64-decoded when the event said so. */
  body: string;
  /** Size of the decoded body in bytes. */
  bodyBytes: number;
  requestId: string | undefined;
  /** The authenticated caller named by the authorizer (IAM user ARN or JWT `sub`), when there is one. */
  principal: string | undefined;
  /**
   * The scopes of the caller's token when the authorizer checked a JWT (its context carries the
   * claims): `scope` / `scp` and the authorizer's own list, together. Undefined when it names no JWT
   * (IAM callers, Function URLs, no authorizer), which is not the same as a token without scopes ([]).
   */
  tokenScopes: readonly string[] | undefined;
  /**
   * The claims of the caller's JWT as the authorizer checked them (HTTP API `authorizer.jwt.claims`, a
   * REST API's Cognito `authorizer.claims`); undefined without a JWT. Only the authorizer writes
   * them: nothing the caller sends in its own headers or body can.
   */
  claims?: Readonly<Record<string, unknown>> | undefined;
  /**
   * The name the client called, as the front door reports it (`requestContext.domainName`: the API's
   * execute-api name or custom domain, the Function URL's name), not the Host header, which the caller
   * writes. Unchecked here; undefined when the event has none (a hand-made event).
   */
  domainName: string | undefined;
  /**
   * The path the client requested, a stage or base path included: a REST API's `path` leaves the stage
   * out, its `requestContext.path` does not; an HTTP API's `rawPath` has it already.
   */
  requestedPath: string;
  /**
   * Epoch milliseconds at which the front door stops waiting for the answer: API Gateway gives an
   * integration 30 s (HTTP API) or 29 s (REST API) from when it received the request, whatever the
   * function's timeout. Undefined for a Function URL, which waits as long as the function runs.
   */
  answerBy: number | undefined;
  /**
   * Epoch milliseconds at which the front door received the request (the time it stamped on the event),
   * or now where there is no plausible stamp (none, later than now, or older than a minute: a hand-made
   * or replayed event). Before any cold start of the invocation that serves it.
   */
  receivedAt: number;
}

/** A stamp older than this is no request's arrival (a replayed event): no cold start takes so long. */
const PLAUSIBLE_ARRIVAL_MS = 60_000;

/** When the front door received the request: its stamp, where plausible, else now. */
function receivedAtOf(stamp: unknown): number {
  const now = Date.now();
  return typeof stamp === "number" && stamp <= now && stamp > now - PLAUSIBLE_ARRIVAL_MS ? stamp : now;
}

/**
 * When the gateway gives up: `limitMs` after the request time it stamped on the event. A missing or
 * implausible stamp (later than now, or older than the limit: clocks disagree, or a hand-made event)
 * counts from now.
 */
function gatewayDeadline(stamp: unknown, limitMs: number): number {
  const now = Date.now();
  const received =
    typeof stamp === "number" && Number.isFinite(stamp) && stamp <= now && stamp > now - limitMs
      ? stamp
      : now;
  return received + limitMs;
}

/** A direct `Invoke` whose payload is the JSON-RPC message (or batch) itself. */
export interface DirectInvocation {
  kind: "direct";
  payload: unknown;
}

type Json = Record<string, unknown>;

/**
 * Events come from anyone allowed to invoke the function, not only from API Gateway: every value is
 * checked for its type before use, nothing untrusted is converted with String() (an object whose
 * `toString` is not callable throws), and only own properties are read.
 */
function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** API Gateway's request ids are UUIDs; anything longer is cut, as it becomes every log line's correlation id. */
const MAX_REQUEST_ID_LENGTH = 128;

function requestIdOf(event: Json): string | undefined {
  const id = text(field(event, "requestContext", "requestId"));
  return id === undefined ? undefined : cutText(id, MAX_REQUEST_ID_LENGTH, "");
}

/**
 * The HTTP method, upper case. A missing (or null) one is GET, as before; one that is not a string is
 * no method at all: "" (answered 405 on /mcp, 404 elsewhere).
 */
function methodOf(value: unknown): string {
  if (value === undefined || value === null) return "GET";
  return typeof value === "string" ? value.toUpperCase() : "";
}

function isHttpApiEvent(event: unknown): event is Json {
  return (
    isPlainObject(event) &&
    isPlainObject(field(event, "requestContext", "http")) &&
    typeof field(event, "rawPath") === "string"
  );
}

function isRestApiEvent(event: unknown): event is Json {
  return isPlainObject(event) && typeof field(event, "httpMethod") === "string";
}

/** Whether the event came over HTTP (API Gateway, Function URL) rather than as a direct invocation. */
export function isHttpEvent(event: unknown): boolean {
  return isHttpApiEvent(event) || isRestApiEvent(event);
}

export function normalizeEvent(event: unknown): HttpRequest | DirectInvocation {
  if (isHttpApiEvent(event)) return fromHttpApi(event);
  if (isRestApiEvent(event)) return fromRestApi(event);
  return { kind: "direct", payload: event };
}

/**
 * Scopes of a claim: a space-separated string (`scope`, RFC 8693; `scp` of some issuers), an array
 * of strings, or such an array as API Gateway's HTTP API passes it, flattened to "[a b]".
 */
function addScopes(scopes: Set<string>, value: unknown): void {
  const words =
    typeof value === "string"
      ? value.replace(/^\[(.*)\]$/s, "$1").split(/\s+/)
      : Array.isArray(value)
        ? Array.from(value).filter((entry): entry is string => typeof entry === "string")
        : [];
  for (const word of words) if (word !== "") scopes.add(word);
}

/**
 * The scopes of the token the authorizer checked, when its context carries JWT claims (HTTP API:
 * `authorizer.jwt.claims` / `.scopes`; a REST API's Cognito authorizer: `authorizer.claims`).
 */
function tokenScopesOf(authorizer: unknown, restApi: boolean): string[] | undefined {
  const claims = claimsOf(authorizer, restApi);
  const listed = field(authorizer, "jwt", "scopes");
  if (!isPlainObject(claims) && !Array.isArray(listed)) return undefined;
  const scopes = new Set<string>();
  addScopes(scopes, listed);
  addScopes(scopes, field(claims, "scope"));
  addScopes(scopes, field(claims, "scp"));
  return [...scopes];
}

/** The JWT claims the authorizer put in the event's context, when it checked a JWT. */
function claimsOf(authorizer: unknown, restApi: boolean): Record<string, unknown> | undefined {
  const claims = field(authorizer, "jwt", "claims") ?? (restApi ? field(authorizer, "claims") : undefined);
  return isPlainObject(claims) ? (claims as Record<string, unknown>) : undefined;
}

/** API Gateway HTTP API (payload 2.0) and Lambda Function URL events. */
function fromHttpApi(event: Json): HttpRequest {
  const domainName = text(field(event, "requestContext", "domainName"));
  const functionUrl = domainName?.includes(".lambda-url.") === true;
  const path = field(event, "rawPath") as string;
  return {
    kind: "http",
    method: methodOf(field(event, "requestContext", "http", "method")),
    path,
    headers: lowerCaseHeaders(field(event, "headers")),
    ...decodeBody(field(event, "body"), field(event, "isBase64Encoded") === true),
    requestId: requestIdOf(event),
    principal:
      text(field(event, "requestContext", "authorizer", "iam", "userArn")) ??
      text(field(event, "requestContext", "authorizer", "jwt", "claims", "sub")),
    tokenScopes: tokenScopesOf(field(event, "requestContext", "authorizer"), false),
    claims: claimsOf(field(event, "requestContext", "authorizer"), false),
    domainName,
    requestedPath: path,
    answerBy: functionUrl
      ? undefined
      : gatewayDeadline(field(event, "requestContext", "timeEpoch"), HTTP_API_LIMIT_MS),
    receivedAt: receivedAtOf(field(event, "requestContext", "timeEpoch")),
  };
}

/** API Gateway REST API (payload 1.0) events. */
function fromRestApi(event: Json): HttpRequest {
  const headers = lowerCaseHeaders(field(event, "headers"));
  // Where both are given, multiValueHeaders win (API Gateway sends the same headers in both).
  addMultiValueHeaders(headers, field(event, "multiValueHeaders"));
  const path = text(field(event, "path")) ?? "/";
  return {
    kind: "http",
    method: methodOf(field(event, "httpMethod")),
    path,
    headers,
    ...decodeBody(field(event, "body"), field(event, "isBase64Encoded") === true),
    requestId: requestIdOf(event),
    principal:
      text(field(event, "requestContext", "identity", "userArn")) ??
      text(field(event, "requestContext", "authorizer", "claims", "sub")) ??
      text(field(event, "requestContext", "authorizer", "jwt", "claims", "sub")),
    tokenScopes: tokenScopesOf(field(event, "requestContext", "authorizer"), true),
    claims: claimsOf(field(event, "requestContext", "authorizer"), true),
    domainName: text(field(event, "requestContext", "domainName")),
    requestedPath: text(field(event, "requestContext", "path")) ?? path,
    answerBy: gatewayDeadline(field(event, "requestContext", "requestTimeEpoch"), REST_API_LIMIT_MS),
    receivedAt: receivedAtOf(field(event, "requestContext", "requestTimeEpoch")),
  };
}

/**
 * A value an HTTP header can carry: a string without CR, LF or NUL (RFC 9110). API Gateway never
 * delivers anything else; an event that does was made by hand, and such a value, echoed into a
 * response header (`Access-Control-Allow-Origin`), would split it.
 */
function isFieldValue(value: unknown): value is string {
  return typeof value === "string" && !/[\r\n\0]/.test(value);
}

/**
 * Headers by lower-case name, in an object without a prototype (a header named `__proto__` or
 * `constructor` is just a header). Values that are not header values are skipped.
 */
function lowerCaseHeaders(headers: unknown): Record<string, string> {
  const result: Record<string, string> = Object.create(null);
  if (!isPlainObject(headers)) return result;
  for (const [name, value] of Object.entries(headers)) {
    if (isFieldValue(value)) result[name.toLowerCase()] = value;
  }
  return result;
}

/** Adds REST API multi-value headers, joined with ", "; entries that are not header values are skipped. */
function addMultiValueHeaders(result: Record<string, string>, headers: unknown): void {
  if (!isPlainObject(headers)) return;
  for (const [name, values] of Object.entries(headers)) {
    if (!Array.isArray(values)) continue;
    const strings = Array.from(values).filter(isFieldValue);
    if (strings.length > 0) result[name.toLowerCase()] = strings.join(", ");
  }
}

function decodeBody(body: unknown, isBase64Encoded: boolean): { body: string; bodyBytes: number } {
  if (typeof body !== "string" || body === "") return { body: "", bodyBytes: 0 };
  if (!isBase64Encoded) return { body, bodyBytes: Buffer.byteLength(body) };
  const bytes = Buffer.from(body, "base64");
  return { body: bytes.toString("utf8"), bodyBytes: bytes.length };
}
