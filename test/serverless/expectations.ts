/** The expected outcomes of events/expected.json, and how a printed `invoke local` result is checked against one. */

/** How one JSON-RPC response must look. */
export interface ResponseShape {
  /** Exactly this id (type included). */
  id: unknown;
  /** `true`: a result is present; an object: the result contains it (deep subset). */
  result?: true | Record<string, unknown>;
  /** The error code; no result. */
  error?: number;
  /** `result.isError` is true (a tool failure) or not. */
  isError?: boolean;
  /** Contained in the tool result's first text, or in the error message. */
  text?: string;
}

export interface Expectation {
  /** Extra environment (application settings) for this event. */
  environment?: Record<string, string>;
  /** A direct invocation: the function's return value is the JSON-RPC reply itself. */
  direct?: boolean;
  /** HTTP status. */
  status?: number;
  /** Content-Type starts with this; `null`: no Content-Type header. */
  contentType?: string | null;
  /** Header values (names lower-case): a string is exact, `true` present, `null` absent. */
  headers?: Record<string, string | true | null>;
  /** `""`: empty body; an object: the JSON body contains it (deep subset). */
  body?: "" | Record<string, unknown>;
  /** One JSON-RPC response. */
  jsonrpc?: ResponseShape;
  /** A batch reply: these responses, in this order. */
  batch?: ResponseShape[];
  /** Direct invocation returning null (a notification): nothing is printed. */
  result?: null;
}

/**
 * The function's return value as invoke local printed it: the last top-level JSON value on stdout
 * (log lines come first), `undefined` when nothing was printed (the handler returned null). osls
 * prints the result with 4-space indentation, so a top-level value starts on a line of its own.
 */
export function printedResult(stdout: string): unknown {
  const lines = stdout.replace(/\r/g, "").split("\n");
  for (let start = lines.length - 1; start >= 0; start--) {
    const line = lines[start] ?? "";
    if (line === "{" || line === "[" || line === "null") {
      return JSON.parse(lines.slice(start).join("\n"));
    }
  }
  return undefined;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null;
}

/** Differences between `actual` and the deep subset `wanted` (arrays are matched by their properties). */
function subsetMismatches(actual: unknown, wanted: unknown, path: string): string[] {
  if (isObject(wanted)) {
    if (!isObject(actual)) return [`${path}: expected an object/array, got ${JSON.stringify(actual)}`];
    return Object.entries(wanted).flatMap(([key, value]) =>
      subsetMismatches((actual as Json)[key], value, `${path}.${key}`),
    );
  }
  return Object.is(actual, wanted)
    ? []
    : [`${path}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(actual)}`];
}

function responseMismatches(actual: unknown, shape: ResponseShape, path: string): string[] {
  if (!isObject(actual) || Array.isArray(actual))
    return [`${path}: not a JSON-RPC response: ${JSON.stringify(actual)}`];
  const problems: string[] = [];
  if (actual.jsonrpc !== "2.0") problems.push(`${path}.jsonrpc: ${JSON.stringify(actual.jsonrpc)}`);
  if (!Object.is(actual.id, shape.id)) {
    problems.push(`${path}.id: expected ${JSON.stringify(shape.id)}, got ${JSON.stringify(actual.id)}`);
  }
  const result = actual.result as Json | undefined;
  const error = actual.error as Json | undefined;
  if (shape.error !== undefined) {
    if (!isObject(error))
      problems.push(`${path}: expected error ${shape.error}, got ${JSON.stringify(actual)}`);
    else if (error.code !== shape.error)
      problems.push(`${path}.error.code: expected ${shape.error}, got ${error.code}`);
    if ("result" in actual) problems.push(`${path}: has both error and result`);
  }
  if (shape.result !== undefined) {
    if (!isObject(result)) problems.push(`${path}: expected a result, got ${JSON.stringify(actual)}`);
    else if (shape.result !== true)
      problems.push(...subsetMismatches(result, shape.result, `${path}.result`));
  }
  if (shape.isError !== undefined && (result?.isError === true) !== shape.isError) {
    problems.push(
      `${path}.result.isError: expected ${shape.isError}, got ${JSON.stringify(result?.isError)}`,
    );
  }
  if (shape.text !== undefined) {
    const content = Array.isArray(result?.content) ? (result.content[0] as Json | undefined) : undefined;
    const text = String(content?.text ?? error?.message ?? "");
    if (!text.includes(shape.text))
      problems.push(`${path}: text ${JSON.stringify(text)} lacks ${JSON.stringify(shape.text)}`);
  }
  return problems;
}

/** Lower-case header name → value, from `headers` and `multiValueHeaders`. */
export function headersOf(response: Json): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(
    (response.multiValueHeaders ?? {}) as Record<string, unknown[]>,
  )) {
    headers[name.toLowerCase()] = values.map(String).join(", ");
  }
  for (const [name, value] of Object.entries((response.headers ?? {}) as Json)) {
    headers[name.toLowerCase()] = String(value);
  }
  return headers;
}

/** Everything in `printed` that does not match `want`. */
export function mismatches(printed: unknown, want: Expectation): string[] {
  if (want.direct) {
    if (want.result === null) {
      return printed === undefined || printed === null
        ? []
        : [`expected no reply, got ${JSON.stringify(printed)}`];
    }
    return replyMismatches(printed, want, "reply");
  }
  if (!isObject(printed) || Array.isArray(printed))
    return [`not an HTTP response: ${JSON.stringify(printed)}`];
  const problems: string[] = [];
  if (want.status !== undefined && printed.statusCode !== want.status) {
    problems.push(`statusCode: expected ${want.status}, got ${printed.statusCode}`);
  }
  const headers = headersOf(printed);
  if (want.contentType === null && "content-type" in headers) {
    problems.push(`content-type: expected none, got ${headers["content-type"]}`);
  }
  if (typeof want.contentType === "string" && !(headers["content-type"] ?? "").startsWith(want.contentType)) {
    problems.push(`content-type: expected ${want.contentType}, got ${headers["content-type"]}`);
  }
  for (const [name, value] of Object.entries(want.headers ?? {})) {
    const got = headers[name];
    if (value === null ? got !== undefined : value === true ? got === undefined : got !== value) {
      problems.push(`header ${name}: expected ${JSON.stringify(value)}, got ${JSON.stringify(got)}`);
    }
  }
  // osls shows a JSON body parsed only when the Content-Type header is exactly "application/json".
  let body = printed.body;
  if (typeof body === "string" && body !== "") {
    try {
      body = JSON.parse(body);
    } catch {
      // not JSON: compared as text
    }
  }
  if (want.body === "") {
    if (body !== "" && body !== undefined && body !== null)
      problems.push(`body: expected empty, got ${JSON.stringify(body)}`);
  } else if (want.body !== undefined) {
    problems.push(...subsetMismatches(body, want.body, "body"));
  }
  problems.push(...replyMismatches(body, want, "body"));
  return problems;
}

function replyMismatches(reply: unknown, want: Expectation, path: string): string[] {
  if (want.jsonrpc) return responseMismatches(reply, want.jsonrpc, path);
  if (want.batch) {
    if (!Array.isArray(reply)) return [`${path}: expected a batch reply, got ${JSON.stringify(reply)}`];
    const problems = want.batch.flatMap((shape, index) =>
      responseMismatches(reply[index], shape, `${path}[${index}]`),
    );
    if (reply.length !== want.batch.length) {
      problems.push(`${path}: expected ${want.batch.length} replies, got ${reply.length}`);
    }
    return problems;
  }
  return [];
}
