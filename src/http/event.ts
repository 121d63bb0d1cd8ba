import { isPlainObject } from "../json.js";

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
}

/** A direct `Invoke` whose payload is the JSON-RPC message (or batch) itself. */
export interface DirectInvocation {
  kind: "direct";
  payload: unknown;
}

type Json = Record<string, unknown>;

function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function isHttpApiEvent(event: unknown): event is Json {
  return (
    isPlainObject(event) &&
    isPlainObject(field(event, "requestContext", "http")) &&
    typeof event.rawPath === "string"
  );
}

function isRestApiEvent(event: unknown): event is Json {
  return isPlainObject(event) && typeof event.httpMethod === "string";
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

/** API Gateway HTTP API (payload 2.0) and Lambda Function URL events. */
function fromHttpApi(event: Json): HttpRequest {
  const headers = lowerCaseHeaders(event.headers);
  return {
    kind: "http",
    method: String(field(event, "requestContext", "http", "method") ?? "GET").toUpperCase(),
    path: event.rawPath as string,
    headers,
    ...decodeBody(event.body, event.isBase64Encoded === true),
    requestId: text(field(event, "requestContext", "requestId")),
    principal:
      text(field(event, "requestContext", "authorizer", "iam", "userArn")) ??
      text(field(event, "requestContext", "authorizer", "jwt", "claims", "sub")),
  };
}

/** API Gateway REST API (payload 1.0) events. */
function fromRestApi(event: Json): HttpRequest {
  const headers = {
    ...lowerCaseHeaders(event.headers),
    ...lowerCaseMultiValueHeaders(event.multiValueHeaders),
  };
  return {
    kind: "http",
    method: (event.httpMethod as string).toUpperCase(),
    path: text(event.path) ?? "/",
    headers,
    ...decodeBody(event.body, event.isBase64Encoded === true),
    requestId: text(field(event, "requestContext", "requestId")),
    principal:
      text(field(event, "requestContext", "identity", "userArn")) ??
      text(field(event, "requestContext", "authorizer", "claims", "sub")) ??
      text(field(event, "requestContext", "authorizer", "jwt", "claims", "sub")),
  };
}

function lowerCaseHeaders(headers: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  if (!isPlainObject(headers)) return result;
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") result[name.toLowerCase()] = value;
  }
  return result;
}

function lowerCaseMultiValueHeaders(headers: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  if (!isPlainObject(headers)) return result;
  for (const [name, values] of Object.entries(headers)) {
    if (Array.isArray(values) && values.length > 0)
      result[name.toLowerCase()] = values.map(String).join(", ");
  }
  return result;
}

function decodeBody(body: unknown, isBase64Encoded: boolean): { body: string; bodyBytes: number } {
  if (typeof body !== "string" || body === "") return { body: "", bodyBytes: 0 };
  if (!isBase64Encoded) return { body, bodyBytes: Buffer.byteLength(body) };
  const bytes = Buffer.from(body, "base64");
  return { body: bytes.toString("utf8"), bodyBytes: bytes.length };
}
