import fc from "fast-check";
import catalog from "../../tools/catalog.json" with { type: "json" };
import { QUERY_BEHAVIOURS } from "./upstream.js";

/**
 * Generators of Lambda events for the whole-handler fuzz suite: the four event shapes (API Gateway
 * HTTP API v2, REST API v1, Function URL, direct Invoke) and arbitrary objects, carrying JSON-RPC
 * messages and batches that are valid, invalid, deep, huge, unicode-heavy, with inexact numbers and
 * `__proto__` keys. Hostile values (objects without a callable `toString`, null prototypes, boxed
 * values, symbols) are planted where the event's fields should be.
 *
 * About one event in six speaks protocol revision 2026-07-28 (in HTTP events and direct invocations):
 * three in five from an honest client (its `_meta` envelope, `Mcp-Method` and `Mcp-Name` headers that
 * match the body, names sentinel-encoded where a header cannot carry them), the rest from one that gets
 * one or two things wrong (headers missing, different, malformed or huge, broken base64, envelopes of
 * the wrong types, other versions, batches, removed or unknown methods, bad `traceparent` and log level).
 */

/** A piece of JSON text written as is: inexact or huge numbers, deep nesting. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written member by member, so that `__proto__` and duplicate keys reach the text. */
export class Members {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}
}

/** JSON text of a value that may hold RawJson and Members. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Members) {
    const members = value.entries
      .filter(([, member]) => member !== undefined)
      .map(([key, member]) => `${JSON.stringify(key)}:${jsonText(member)}`);
    return `{${members.join(",")}}`;
  }
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(item ?? null)).join(",")}]`;
  if (typeof value === "object" && value !== null) return jsonText(new Members(Object.entries(value)));
  return JSON.stringify(value) ?? "null";
}

/** Where a caller-supplied session id comes from: the pool of live sessions, or made up. */
export interface PooledSession {
  id: string;
  principal: string | undefined;
}

/** Live sessions made before the run (filled in place; the generators read it when they run). */
export interface SessionPool {
  sessions: PooledSession[];
}

export type Shape = "v2" | "v1" | "url" | "direct" | "arbitrary";

/** One fuzz case: an event, the Lambda's remaining time, and how it was made. */
export interface FuzzEvent {
  shape: Shape;
  event: unknown;
  remainingMs: number;
  /** Fields replaced by hostile values, for the report. */
  mutated: string[];
}

// ---------------------------------------------------------------------------------------------
// Text

const SPECIAL_CHARS = [
  "\u0000",
  "\n",
  "\r",
  "\t",
  "\u2028",
  "\u2029",
  "\ud800",
  "\udfff",
  "😀",
  "é",
  "\u202e",
  "\ufeff",
  '"',
  "\\",
  "/",
  "<",
  "%",
  "{",
  "}",
  " ",
] as const;

const char = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_CHARS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 4, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
);

/** `arbitrary` one time in `n`, else undefined. */
function oneIn<T>(n: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** `arbitrary`, except undefined one time in `n`. */
function allButOneIn<T>(n: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: n - 1, arbitrary });
}

function text(maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: char, maxLength });
}

function long(unit: string, min: number, max: number): fc.Arbitrary<string> {
  return fc.integer({ min, max }).map((length) => unit.repeat(Math.ceil(length / unit.length)));
}

// ---------------------------------------------------------------------------------------------
// JSON values

const KEYS = ["__proto__", "constructor", "prototype", "toString", "_meta", "jsonrpc", "id", "method"];
const key = fc.oneof({ weight: 3, arbitrary: text(8) }, { weight: 1, arbitrary: fc.constantFrom(...KEYS) });

/** Numbers as JSON text that JSON.parse makes inexact, infinite or surprising. */
const RAW_NUMBERS = [
  "1e400",
  "-1e400",
  "1e308",
  "123456789012345678901234567890",
  "9007199254740993",
  "-9007199254740993",
  "1.0",
  "1.5",
  "-0",
  "0e0",
  "1E2",
  "5e-324",
];
const rawNumber = fc.constantFrom(...RAW_NUMBERS).map((literal) => new RawJson(literal));

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  text(12),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  rawNumber,
);

/** A JSON value with `__proto__` and duplicate keys, raw numbers and special characters. */
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 4 }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(key, tie("value")), { maxLength: 4 })
        .map((entries) => new Members(entries)),
    },
  ),
})).value;

const object = fc.array(fc.tuple(key, json), { maxLength: 4 }).map((entries) => new Members(entries));

/** Nesting thousands deep, as text (a generated value that deep would overflow the generator). */
const deep = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 200 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 100_000 }) },
    ),
    fc.constantFrom("object", "array", "mixed"),
  )
  .map(([depth, kind]) => {
    if (kind === "object") return new RawJson(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);
    if (kind === "array") return new RawJson(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    return new RawJson(`${'{"a":['.repeat(depth)}1${"]}".repeat(depth)}`);
  });

// ---------------------------------------------------------------------------------------------
// JSON-RPC

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Integers beyond 2^53 - 1 in magnitude, as JSON text: JSON.parse cannot hold them exactly (9007199254740993
 * reads as 9007199254740992), so an id among them must come back exactly as sent, or be refused with id null.
 */
export const unsafeIntegerId: fc.Arbitrary<RawJson> = fc
  .oneof(
    fc.constantFrom(
      "9007199254740992",
      "9007199254740993",
      "-9007199254740993",
      "9007199254740993.0",
      "90071992547409930e-1",
      "1e20",
      "18446744073709551615",
    ),
    fc.bigInt({ min: MAX_SAFE + 1n, max: MAX_SAFE + 20n }).map(String),
    fc
      .bigInt({ min: -(2n ** 80n), max: 2n ** 80n })
      .filter((n) => n > MAX_SAFE || n < -MAX_SAFE)
      .map(String),
  )
  .map((literal) => new RawJson(literal));

export const requestId: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -5, max: 50 }) },
  { weight: 3, arbitrary: text(12) },
  { weight: 2, arbitrary: rawNumber },
  { weight: 1, arbitrary: unsafeIntegerId },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(null, true, false, {}, [], [1], { a: 1 }, 2 ** 53, -(2 ** 53)),
  },
  { weight: 1, arbitrary: long("i", 1_000, 60_000) },
);

const KNOWN_METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "logging/setLevel",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/roots/list_changed",
  "resources/list",
  "resources/read",
  "prompts/list",
  "completion/complete",
  "sampling/createMessage",
];
const TRICKY_METHODS = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "",
  " ",
  "tools/call ",
  "TOOLS/LIST",
  "rpc.discover",
  "notifications/",
  "tools/list\u0000",
];
const methodName: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.constant("tools/call") },
  { weight: 3, arbitrary: fc.constantFrom("tools/list", "initialize", "ping", "notifications/cancelled") },
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN_METHODS) },
  { weight: 2, arbitrary: fc.constantFrom(...TRICKY_METHODS) },
  { weight: 2, arbitrary: text(24) },
  { weight: 1, arbitrary: json },
);

const jsonrpcVersion = fc.oneof(
  { weight: 30, arbitrary: fc.constant<unknown>("2.0") },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, "1.0", 2, null, "2.0 ", ["2.0"]) },
);

/** The Python server's five tools (the ones served under PYTHON_COMPAT). */
const TOOL_NAMES = catalog.groups.core;

/** The other tools: discovery, alerting (lists of labels, series, metadata, alerts, rules, silences) and charts. */
const MORE_TOOL_NAMES = [...catalog.groups.discovery, ...catalog.groups.alerting, ...catalog.groups.charts];

const promql = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "up",
      "rate(http_requests_total[5m])",
      "sum by (job) (up)",
      'probe_success{instance="https://x"}',
      "up{",
      "",
      " ",
      "wide_metric",
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...QUERY_BEHAVIOURS) },
  { weight: 3, arbitrary: text(30) },
  { weight: 1, arbitrary: long("up+", 1_000, 20_000) },
);
const timeValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "2024-01-01T00:00:00Z",
    "2024-01-01T00:00:00.123+02:00",
    "1700000000",
    "1700000000.5",
    "now",
    "-1",
    "0",
    "1e20",
    "2024-13-45T99:99:99Z",
    "",
  ),
  fc.integer(),
  fc.double(),
  text(12),
);
const step: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("15s", "1m", "5m30s", "0", "-5", "1e9", "0.001", "60", "1y", "1ms"),
  fc.integer(),
  text(8),
);
const workspaceId: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "ws-fuzz-active",
    "ws-fuzz-creating",
    "ws-fuzz-hostile",
    "ws-00000000-0000-0000-0000-000000000000",
    "ws-",
    "ws-../../etc",
    "WS-FUZZ",
  ),
  text(20),
  fc.integer(),
);
const region: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("us-east-1", "us-west-2", "eu-central-1", "cn-north-1", "us-gov-west-1", "xx-bad-1", ""),
  text(12),
);
const validTime = fc.constantFrom("2024-01-01T00:00:00Z", "1700000000", "2024-01-01T00:10:00.5+01:00");
/** Arguments each tool accepts, so that most calls get past validation to Prometheus. */
const validArguments: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ query: promql, time: validTime }, { requiredKeys: ["query"] }),
  fc.record({
    query: promql,
    start: validTime,
    end: validTime,
    step: fc.constantFrom("15s", "1m", "60"),
  }),
  fc.record(
    {
      workspace_id: fc.constantFrom("ws-fuzz-active", "ws-fuzz-creating", "ws-fuzz-hostile"),
      region: fc.constant("us-east-1"),
    },
    { requiredKeys: [] },
  ),
  fc.record({ limit: fc.integer({ min: 0, max: 50 }) }, { requiredKeys: [] }),
  // The discovery and alerting tools' own arguments.
  fc.record(
    {
      label: fc.constantFrom("job", "__name__", "instance", "le"),
      metric: fc.constantFrom("up", "node_load1", "http_requests_total"),
      match: fc.oneof(
        fc.constantFrom('{job="node"}', "up", '{__name__=~".+"}', 'alertname="HighErrorRate"'),
        promql,
      ),
      state: fc.constantFrom("firing", "pending", "active", "expired"),
      type: fc.constantFrom("alert", "record"),
      workspace_id: fc.constantFrom("ws-fuzz-active", "ws-fuzz-hostile"),
      limit: fc.integer({ min: 0, max: 50 }),
    },
    { requiredKeys: [] },
  ),
);
const toolArguments: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: validArguments },
  {
    weight: 8,
    arbitrary: fc.record(
      {
        query: promql,
        time: timeValue,
        start: timeValue,
        end: timeValue,
        step,
        workspace_id: workspaceId,
        region,
        limit: fc.oneof(fc.integer({ min: -2, max: 1_000 }), fc.double(), fc.constant("10")),
        profile: fc.constantFrom("default", "fuzz"),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: object },
  { weight: 1, arbitrary: json },
  { weight: 1, arbitrary: deep },
);

const meta: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ progressToken: requestId }, { requiredKeys: [] }),
  json,
  deep,
);

function withMeta(params: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  return fc
    .tuple(params, oneIn(4, meta))
    .map(([value, metaValue]) => (metaValue === undefined ? value : { ...value, _meta: metaValue }));
}

const paramsByMethod: Record<string, fc.Arbitrary<unknown>> = {
  initialize: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(
        {
          protocolVersion: fc.oneof(
            fc.constantFrom(
              "2024-11-05",
              "2025-03-26",
              "2025-06-18",
              "2025-11-25",
              "2026-07-28",
              "1999-01-01",
            ),
            text(12),
            fc.integer(),
          ),
          capabilities: fc.oneof(object, json),
          clientInfo: fc.oneof(fc.record({ name: text(12), version: text(6) }), json, deep),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: json },
    { weight: 1, arbitrary: deep },
  ),
  "tools/call": withMeta(
    fc.record(
      {
        name: fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom(...TOOL_NAMES) },
          { weight: 3, arbitrary: fc.constantFrom(...MORE_TOOL_NAMES) },
          { weight: 1, arbitrary: text(16) },
          { weight: 1, arbitrary: json },
        ),
        arguments: toolArguments,
      },
      { requiredKeys: [] },
    ),
  ),
  "tools/list": withMeta(fc.record({ cursor: fc.oneof(text(10), json) }, { requiredKeys: [] })),
  "logging/setLevel": fc.record(
    {
      level: fc.oneof(
        fc.constantFrom("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"),
        text(8),
        json,
      ),
    },
    { requiredKeys: [] },
  ),
  "notifications/cancelled": fc.record({ requestId, reason: text(20) }, { requiredKeys: [] }),
  "notifications/progress": fc.record(
    { progressToken: requestId, progress: fc.oneof(fc.double(), rawNumber), total: fc.double() },
    { requiredKeys: [] },
  ),
};

const anyParams: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: object },
  { weight: 1, arbitrary: json },
  { weight: 1, arbitrary: deep },
);

/** A request or notification whose params fit its method most of the time. */
const call: fc.Arbitrary<unknown> = methodName.chain((method) => {
  const params =
    typeof method === "string" && Object.hasOwn(paramsByMethod, method)
      ? (paramsByMethod[method] as fc.Arbitrary<unknown>)
      : anyParams;
  const notification = typeof method === "string" && method.startsWith("notifications/");
  return fc
    .record({
      jsonrpc: jsonrpcVersion,
      flipId: fc.integer({ min: 0, max: 9 }),
      id: requestId,
      params: allButOneIn(5, params),
      extra: oneIn(8, fc.tuple(key, json)),
    })
    .map(({ jsonrpc, flipId, id, params: paramsValue, extra }) => {
      // Mostly requests carry an id and notifications none; one time in ten, the other way round.
      const withId = notification ? flipId === 0 : flipId !== 0;
      const entries: [string, unknown][] = [
        ["jsonrpc", jsonrpc],
        ...(withId ? ([["id", id]] as [string, unknown][]) : []),
        ["method", method],
        ["params", paramsValue],
      ];
      if (extra) entries.push(extra);
      return new Members(entries);
    });
});

/** A response sent by a client (to a server request it never received). */
const clientResponse: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ jsonrpc: fc.constant("2.0"), id: requestId, result: json }),
  fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.oneof(requestId, fc.constant(null)),
    error: fc.record({ code: fc.oneof(fc.integer(), fc.double()), message: text(12) }, { requiredKeys: [] }),
  }),
);

export const message: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 16, arbitrary: call },
  { weight: 1, arbitrary: clientResponse },
  { weight: 1, arbitrary: object },
  { weight: 1, arbitrary: json },
);

function idOf(entry: unknown): unknown {
  if (entry instanceof Members) return entry.entries.find(([name]) => name === "id")?.[1];
  return undefined;
}

/** A batch with cancellations naming ids of its own requests. */
const batch: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.array(message, { minLength: 0, maxLength: 8 }),
    fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 3 }),
  )
  .map(([entries, cancels]) => {
    const ids = entries.map(idOf).filter((id) => id !== undefined);
    const all = [...entries];
    for (const [which, where] of cancels) {
      const cancel = {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: ids.length > 0 ? ids[which % ids.length] : which, reason: "fuzz" },
      };
      all.splice(where % (all.length + 1), 0, cancel);
    }
    return all;
  });

/** Around the 100-entry batch limit. */
const bigBatch: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.integer({ min: 95, max: 130 }),
    fc.constantFrom("ping", "tools/list", "notifications/initialized"),
  )
  .map(([count, method]) =>
    Array.from({ length: count }, (_, i) =>
      method.startsWith("notifications/") ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", id: i, method },
    ),
  );

/**
 * Requests whose ids JSON.parse reads as one number (2^53 + 1 and 2^53 both read as 2^53), with a
 * request at the largest safe id: every answer carries its request's id exactly, or null.
 */
const unsafeIdBatch: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.constantFrom(
      ["9007199254740993", "9007199254740992"],
      ["-9007199254740993", "-9007199254740992"],
      ["18014398509481985", "18014398509481984", "18014398509481986"],
    ),
    fc.constantFrom("ping", "tools/list", "bogus/method"),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([ids, method, reversed, single]) => {
    const all = [...(reversed ? [...ids].reverse() : ids), "9007199254740991"].map(
      (id) =>
        new Members([
          ["jsonrpc", "2.0"],
          ["id", new RawJson(id)],
          ["method", method],
        ]),
    );
    return single ? all[0] : all;
  });

/** About a megabyte of notifications (the security review's log-flooding batch). */
const megabyteOfNotifications: fc.Arbitrary<unknown> = fc.constantFrom(1_000_000, 1_048_000).map((bytes) => {
  const one = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}';
  return new RawJson(
    `[${Array.from({ length: Math.floor(bytes / (one.length + 1)) }, () => one).join(",")}]`,
  );
});

/** What a POST carries (or a direct invocation is). */
export const payload: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 40, arbitrary: message },
  { weight: 16, arbitrary: batch },
  { weight: 2, arbitrary: bigBatch },
  { weight: 1, arbitrary: unsafeIdBatch },
  { weight: 2, arbitrary: json },
  { weight: 2, arbitrary: deep },
  { weight: 1, arbitrary: megabyteOfNotifications },
);

/** A body: mostly the payload's JSON, sometimes broken, padded or not JSON at all. */
const bodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 14, arbitrary: payload.map(jsonText) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(payload.map(jsonText), fc.nat())
      .map(([whole, cut]) => whole.slice(0, cut % (whole.length + 1))),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(payload.map(jsonText), fc.constantFrom("\ufeff", " \n\t", "x", "}", "\u0000"), fc.boolean())
      .map(([whole, pad, before]) => (before ? pad + whole : whole + pad)),
  },
  { weight: 1, arbitrary: text(40) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "null", "[]", "{}", "[[]]", '"x"', "1", "true") },
);

// ---------------------------------------------------------------------------------------------
// HTTP

const httpMethod: fc.Arbitrary<string> = fc.oneof(
  { weight: 40, arbitrary: fc.constant("POST") },
  {
    weight: 4,
    arbitrary: fc.constantFrom("GET", "DELETE", "OPTIONS", "PUT", "PATCH", "HEAD", "post", "Get", "options"),
  },
  { weight: 1, arbitrary: text(8) },
);

const httpPath: fc.Arbitrary<string> = fc.oneof(
  { weight: 40, arbitrary: fc.constant("/mcp") },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "/health",
      "/prod/mcp",
      "/mcp/",
      "//mcp",
      "/",
      "",
      "/mcp/x",
      "/health/",
      "/MCP",
      "/%6Dcp",
      "/mcp?x=1",
      "/prod/health",
      "/../mcp",
    ),
  },
  { weight: 1, arbitrary: text(20).map((segment) => `/${segment}`) },
  { weight: 1, arbitrary: long("/a", 1_000, 100_000).map((prefix) => `${prefix}/mcp`) },
);

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/vnd.api+json",
  "APPLICATION/JSON",
  "text/plain",
  "application/x-www-form-urlencoded",
  "",
  "application/json, text/plain",
  "multipart/form-data; boundary=x",
  "application/jsonx",
];
const ACCEPTS = [
  "application/json, text/event-stream",
  "*/*",
  "application/json",
  "text/event-stream",
  "application/json;q=0",
  "application/*",
  "text/html",
  "",
  "*/*;q=0.0001",
  "application/json;q=abc",
];
const ORIGINS = [
  "http://localhost:3000",
  "http://127.0.0.1",
  "http://[::1]:8080",
  "https://evil.example",
  "null",
  "file://",
  "http://localhost.evil.example",
  "http://local\nhost",
  "http://localhost:3000\r\nX-Injected: 1",
  "javascript:alert(1)",
  "",
  " ",
];
const PROTOCOL_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
  "2026-07-28",
  "1.0",
  "",
  " 2025-06-18 ",
];
const HOSTS = [
  "localhost:3000",
  "127.0.0.1",
  "[::1]:3000",
  "evil.example",
  "",
  "abc.execute-api.us-east-1.amazonaws.com",
];

/** An Authorization value no answer or log line may ever carry. */
export const AUTHORIZATION_MARKER = "Bearer fuzz-secret-token-6f1d";

const PRINCIPALS = [
  "arn:aws:iam::123456789012:user/fuzz-a",
  "arn:aws:sts::123456789012:assumed-role/fuzz-role/session-b",
  "fuzz-jwt-sub",
  "é😀\u0000",
];

const principal: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constantFrom(...PRINCIPALS) },
  { weight: 1, arbitrary: text(20) },
  { weight: 1, arbitrary: long("p", 300, 10_000) },
);

function sessionHeader(pool: SessionPool): fc.Arbitrary<{ id: string; owner?: PooledSession }> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.nat().map((index) => {
        const owner = pool.sessions.length > 0 ? pool.sessions[index % pool.sessions.length] : undefined;
        return owner ? { id: owner.id, owner } : { id: "00000000-0000-4000-8000-000000000000" };
      }),
    },
    { weight: 2, arbitrary: fc.uuid().map((id) => ({ id })) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.constantFrom("", " ", "a b", "x".repeat(129), "é", "\u0000", "../../x"), text(20))
        .map((id) => ({ id })),
    },
  );
}

type HeaderPair = [string, unknown];

/** A header value: mostly what an MCP client sends (`honest`), else anything from the list or random text. */
function headerValue(honest: readonly string[], others: readonly string[], maxLength: number) {
  return fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...honest) },
    { weight: 1, arbitrary: fc.constantFrom(...others) },
    { weight: 1, arbitrary: text(maxLength) },
  );
}

function headers(pool: SessionPool): fc.Arbitrary<{ pairs: HeaderPair[]; owner?: PooledSession }> {
  return fc
    .record({
      contentType: allButOneIn(8, headerValue(CONTENT_TYPES.slice(0, 3), CONTENT_TYPES, 20)),
      accept: allButOneIn(4, headerValue(ACCEPTS.slice(0, 3), ACCEPTS, 20)),
      // Browsers send Origin; most MCP clients do not.
      origin: oneIn(5, headerValue(ORIGINS.slice(0, 3), ORIGINS, 20)),
      protocolVersion: oneIn(2, headerValue(PROTOCOL_VERSIONS.slice(0, 4), PROTOCOL_VERSIONS, 12)),
      session: oneIn(2, sessionHeader(pool)),
      host: oneIn(3, fc.constantFrom(...HOSTS)),
      authorization: fc.boolean(),
      random: fc.array(fc.tuple(text(10), text(20)), { maxLength: 2 }),
    })
    .map(({ contentType, accept, origin, protocolVersion, session, host, authorization, random }) => {
      const pairs: HeaderPair[] = [];
      if (contentType !== undefined) pairs.push(["content-type", contentType]);
      if (accept !== undefined) pairs.push(["accept", accept]);
      if (origin !== undefined) pairs.push(["origin", origin]);
      if (protocolVersion !== undefined) pairs.push(["mcp-protocol-version", protocolVersion]);
      if (session !== undefined) pairs.push(["mcp-session-id", session.id]);
      if (host !== undefined) pairs.push(["host", host]);
      if (authorization) pairs.push(["authorization", AUTHORIZATION_MARKER]);
      pairs.push(...random);
      return { pairs, ...(session?.owner ? { owner: session.owner } : {}) };
    });
}

// ---------------------------------------------------------------------------------------------
// Protocol revision 2026-07-28 ("modern"): stateless, one message per POST, the version and the
// client's capabilities in every request's `params._meta`, and `Mcp-Method` / `Mcp-Name` headers that
// mirror the body. Most of it is what an honest client sends; the rest is a client that gets one or
// two things wrong, or a hostile one.

export const MODERN_VERSION = "2026-07-28";

/** The `_meta` keys of 2026-07-28. */
export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
} as const;

const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** `honestValue` from an honest client; from any other, mostly that and one time in `n` `hostileValue`. */
function either<T>(
  honest: boolean,
  honestValue: fc.Arbitrary<T>,
  hostileValue: fc.Arbitrary<T>,
  n = 6,
): fc.Arbitrary<T> {
  if (honest) return honestValue;
  return fc.oneof({ weight: n - 1, arbitrary: honestValue }, { weight: 1, arbitrary: hostileValue });
}

function hex(bytes: number): fc.Arbitrary<string> {
  return fc
    .uint8Array({ minLength: bytes, maxLength: bytes })
    .map((value) => Buffer.from(value).toString("hex"));
}

/** A W3C `traceparent` as OpenTelemetry sends it (or a later version, with more fields). */
const goodTraceparent: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(hex(16), hex(8), fc.constantFrom("00", "01"))
      .map(([trace, parent, flags]) => `00-${trace}-${parent}-${flags}`),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(hex(16), hex(8)).map(([trace, parent]) => `cc-${trace}-${parent}-01-what-comes-next`),
  },
);

/** A `traceparent` that does not parse (ignored, never refused). */
const badTraceparent: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
    "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
    "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
    " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n",
    "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n-x",
    "",
    "not-a-traceparent",
    42,
    null,
    {},
    ["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
  ),
  fc.tuple(hex(16), hex(8)).map(([trace, parent]) => `01-${trace}-${parent}-01-${"x".repeat(600)}`),
  text(60),
);

/** A version claimed in `_meta` that is not 2026-07-28: legacy, unknown, malformed, huge, or absent. */
const otherClaimedVersion: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<unknown>(
      "2025-11-25",
      "2025-06-18",
      "2024-11-05",
      "2024-10-07",
      "2099-01-01",
      "2026-07-29",
      "",
      " 2026-07-28",
      "2026-07-28\u0000",
      "２０２６-07-28",
      20260728,
      null,
      {},
      ["2026-07-28"],
      undefined,
    ),
  },
  { weight: 1, arbitrary: fc.oneof(text(12), long("2026-07-28", 200, 5_000)) },
);

/** `params._meta` of a 2026-07-28 request, written member by member. */
function modernMeta(honest: boolean): fc.Arbitrary<unknown> {
  const clientInfo = fc.record({
    name: fc.constantFrom("fuzz-client", "é😀 client"),
    version: fc.constantFrom("1.0.0", "0"),
  });
  return fc
    .record({
      version: either(honest, fc.constant<unknown>(MODERN_VERSION), otherClaimedVersion),
      capabilities: either(
        honest,
        fc.constantFrom<unknown>({}, { sampling: {} }, { roots: { listChanged: true } }, { elicitation: {} }),
        fc.oneof(fc.constantFrom<unknown>(undefined, null, [], "all", 1), json),
        12,
      ),
      clientInfo: either(
        honest,
        oneIn(2, clientInfo),
        fc.constantFrom<unknown>(null, "fuzz", { name: "x" }, { name: 1, version: "1" }, [], {
          name: "x",
          version: null,
        }),
        12,
      ),
      logLevel: either(
        honest,
        oneIn(3, fc.constantFrom(...LOG_LEVELS)),
        fc.constantFrom<unknown>("verbose", "DEBUG", "", " info", "warn", 3, null, ["debug"]),
        12,
      ),
      traceparent: oneIn(3, either(honest, goodTraceparent, badTraceparent, 2)),
      extra: oneIn(
        6,
        either(
          honest,
          fc.tuple(fc.constant("progressToken"), fc.oneof(fc.integer({ min: 0 }), text(8))),
          fc.oneof(
            fc.tuple(fc.constant("progressToken"), fc.constantFrom<unknown>(null, {}, 1.5, true)),
            fc.tuple(key, json),
          ),
          2,
        ),
      ),
    })
    .map(
      ({ version, capabilities, clientInfo: info, logLevel, traceparent, extra }) =>
        new Members([
          [META_KEYS.protocolVersion, version],
          [META_KEYS.clientCapabilities, capabilities],
          [META_KEYS.clientInfo, info],
          [META_KEYS.logLevel, logLevel],
          ["traceparent", traceparent],
          ...(extra ? [extra] : []),
        ]),
    );
}

/** Methods 2026-07-28 removed (answered 404 `-32601`, named as removed). */
const REMOVED_METHODS = [
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
];
/** Methods this server does not serve in 2026-07-28, some of which name something in `Mcp-Name`. */
const UNSERVED_METHODS = [
  "prompts/get",
  "resources/read",
  "resources/list",
  "prompts/list",
  "completion/complete",
  "server/discover ",
  "Server/Discover",
  "tools/call\u0000",
  "tools/cäll",
  "rpc.discover",
  "notifications/initialized",
];

/** Names every plain object has: a lookup table that is not a Map answers them. */
const PROTOTYPE_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

/** What an honest 2026-07-28 client of this server asks: discovery, the tool list, tool calls. */
const servedMethod = fc.oneof(
  { weight: 5, arbitrary: fc.constant("tools/call") },
  { weight: 3, arbitrary: fc.constant("tools/list") },
  { weight: 3, arbitrary: fc.constant("server/discover") },
);

function modernMethod(honest: boolean): fc.Arbitrary<string> {
  return either(
    honest,
    servedMethod,
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...REMOVED_METHODS) },
      { weight: 3, arbitrary: fc.constantFrom(...UNSERVED_METHODS) },
      { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
      { weight: 1, arbitrary: fc.oneof(text(16), long("m/", 200, 3_000)) },
    ),
    4,
  );
}

/** A tool name a header cannot carry as it is, a huge one, or no string at all. */
const hostileToolName: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    "ListMetrics ",
    " GetServerInfo",
    "Liste der Metriken – ü😀",
    "\ufeffListMetrics",
    "=?base64?TGlzdE1ldHJpY3M=?=",
    "tab\there",
    "",
    undefined,
    null,
    7,
    {},
    ["ListMetrics"],
  ),
  text(16),
  long("N", 1_000, 12_000),
);

/**
 * What an honest client passes each tool: the fakes' ACTIVE workspace, which answers at once in every
 * configuration (slow, hanging and refused Prometheus calls are legacy's to make, and a hostile
 * client's now and then).
 */
function honestArguments(tool: unknown): fc.Arbitrary<unknown> {
  const workspace = { workspace_id: "ws-fuzz-active", region: "us-east-1" };
  const query = fc.constantFrom(
    "up",
    "sum by (job) (up)",
    "wide_metric",
    "rate(up[5m])",
    "up{",
    "bad",
    "junk",
  );
  switch (tool) {
    case "ExecuteQuery":
      return fc
        .record({ query, time: validTime }, { requiredKeys: ["query"] })
        .map((value) => ({ ...value, ...workspace }));
    case "ExecuteRangeQuery":
      return fc
        .record({ query, start: validTime, end: validTime, step: fc.constantFrom("15s", "1m", "60") })
        .map((value) => ({ ...value, ...workspace }));
    case "ListMetrics":
      return fc.constant(workspace);
    case "GetAvailableWorkspaces":
      return fc.constantFrom({}, { region: "us-east-1" });
    default:
      return fc.constantFrom({}, workspace);
  }
}

/** The params of a 2026-07-28 request of `method` (without `_meta`), and the name `Mcp-Name` mirrors. */
function modernParams(
  method: string,
  honest: boolean,
): fc.Arbitrary<{ entries: [string, unknown][]; name: unknown }> {
  switch (method) {
    case "tools/call":
      return either(honest, fc.constantFrom<unknown>(...TOOL_NAMES), hostileToolName, 4).chain((name) =>
        either(
          honest,
          honestArguments(name),
          fc.oneof(fc.constantFrom<unknown>(undefined, null, [], "up"), toolArguments),
          8,
        ).map((argumentsValue) => ({
          entries: [
            ["name", name],
            ["arguments", argumentsValue],
          ],
          name,
        })),
      );
    case "tools/list":
      return oneIn(6, fc.oneof(text(10), json)).map((cursor) => ({
        entries: [["cursor", cursor]],
        name: undefined,
      }));
    case "prompts/get":
      return fc.constantFrom("summary", "é-prompt").map((name) => ({ entries: [["name", name]], name }));
    case "resources/read":
      return fc
        .constantFrom("file:///etc/passwd", "prom://up", "https://x/ü")
        .map((uri) => ({ entries: [["uri", uri]], name: uri }));
    case "initialize":
      return fc.constant({
        entries: [
          ["protocolVersion", MODERN_VERSION],
          ["capabilities", {}],
          ["clientInfo", { name: "fuzz-client", version: "1" }],
        ],
        name: undefined,
      });
    case "logging/setLevel":
      return fc.constant({ entries: [["level", "debug"]], name: undefined });
    default:
      return fc.constant({ entries: [], name: undefined });
  }
}

/** A 2026-07-28 message, and what an honest client derives its headers from. */
interface ModernMessage {
  message: unknown;
  method: string;
  name: unknown;
}

/** The `_meta` value: the envelope, or now and then something that is no envelope at all. */
function modernMetaValue(honest: boolean): fc.Arbitrary<unknown> {
  return either(
    honest,
    modernMeta(honest),
    fc.oneof(
      fc.constantFrom<unknown>(undefined, null, "2026-07-28", [], 1),
      fc.record({ progressToken: fc.integer() }),
    ),
    20,
  );
}

/** How a message is broken: not at all, or a notification, without params, with too many members… */
const brokenShape = fc.constantFrom(
  "notification" as const,
  "no-params" as const,
  "params-not-object" as const,
  "extra-member" as const,
);

/** A 2026-07-28 request (from a client that is not honest, sometimes broken as a message). */
function modernRequest(honest: boolean): fc.Arbitrary<ModernMessage> {
  return modernMethod(honest).chain((method) =>
    fc
      .record({
        params: modernParams(method, honest),
        meta: modernMetaValue(honest),
        id: either(
          honest,
          fc.oneof(
            { weight: 3, arbitrary: fc.integer({ min: 0, max: 1_000 }) },
            { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 }) },
          ),
          requestId,
          12,
        ),
        jsonrpc: either(honest, fc.constant<unknown>("2.0"), jsonrpcVersion, 12),
        shape: either(honest, fc.constant("request" as const), brokenShape, 12),
      })
      .map(({ params, meta: metaValue, id, jsonrpc, shape }) => {
        const paramsValue =
          shape === "no-params"
            ? undefined
            : shape === "params-not-object"
              ? [metaValue]
              : new Members([...params.entries, ["_meta", metaValue]]);
        const entries: [string, unknown][] = [
          ["jsonrpc", jsonrpc],
          ...(shape === "notification" ? [] : ([["id", id]] as [string, unknown][])),
          ["method", method],
          ["params", paramsValue],
        ];
        if (shape === "extra-member") entries.push(["extra", true]);
        return { message: new Members(entries), method, name: params.name };
      }),
  );
}

/** A notification of 2026-07-28 (accepted and dropped). */
const modernNotification: fc.Arbitrary<ModernMessage> = fc
  .tuple(
    fc.constantFrom("notifications/cancelled", "notifications/progress", "notifications/x"),
    modernMeta(true),
  )
  .map(([method, metaValue]) => ({
    message: new Members([
      ["jsonrpc", "2.0"],
      ["method", method],
      [
        "params",
        new Members([
          ["requestId", 1],
          ["_meta", metaValue],
        ]),
      ],
    ]),
    method,
    name: undefined,
  }));

const notAModernMessage = (value: unknown): ModernMessage => ({
  message: value,
  method: "",
  name: undefined,
});

/** What a 2026-07-28 POST carries (or a direct invocation is). */
function modernPayload(honest: boolean): fc.Arbitrary<ModernMessage> {
  if (honest) {
    return fc.oneof(
      { weight: 30, arbitrary: modernRequest(true) },
      { weight: 1, arbitrary: modernNotification },
    );
  }
  return fc.oneof(
    { weight: 24, arbitrary: modernRequest(false) },
    { weight: 1, arbitrary: modernNotification },
    // Only the version header makes these modern.
    { weight: 1, arbitrary: clientResponse.map(notAModernMessage) },
    { weight: 1, arbitrary: fc.oneof(object, json).map(notAModernMessage) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.array(message, { maxLength: 3 }), modernRequest(true), fc.nat())
        .map(([entries, modern, at]) => {
          const all = [...entries];
          all.splice(at % (all.length + 1), 0, modern.message);
          return { message: all, method: modern.method, name: modern.name };
        }),
    },
  );
}

/** A 2026-07-28 payload: three in five from an honest client. */
export const modernMessage: fc.Arbitrary<ModernMessage> = fc.oneof(
  { weight: 3, arbitrary: modernPayload(true) },
  { weight: 2, arbitrary: modernPayload(false) },
);

/** `=?base64?…?=`: how a client sends a value a header cannot carry as it is. */
export function sentinel(value: string): string {
  return `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** Whether a header carries `value` as it is (visible ASCII, no surrounding space, nothing like a sentinel). */
function plainHeaderValue(value: string): boolean {
  return (
    /^[\x21-\x7E]([\x20-\x7E]*[\x21-\x7E])?$/.test(value) && !(value.startsWith("=?") && value.endsWith("?="))
  );
}

/** A value no header may carry, a malformed or a huge one, for the header that should say `honest`. */
function hostileHeaderValue(honest: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      `${honest}é`,
      `${honest}😀`,
      `${honest}\u0000`,
      `${honest}\r\nX-Injected: 1`,
      `\t${honest} `,
      `\u00a0${honest}`,
      honest.toUpperCase(),
      "",
      " ",
    ),
    long("h", 1_000, 20_000),
    text(16),
  );
}

/** `MCP-Protocol-Version`: 2026-07-28, else missing, another, or malformed. */
function versionHeader(honest: boolean): fc.Arbitrary<string | undefined> {
  return either(
    honest,
    fc.oneof(
      { weight: 12, arbitrary: fc.constant(MODERN_VERSION) },
      { weight: 1, arbitrary: fc.constant(" 2026-07-28\t") },
    ),
    fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(...PROTOCOL_VERSIONS, "2099-01-01", "2026‐07‐28"),
      hostileHeaderValue(MODERN_VERSION),
    ),
  );
}

/** `Mcp-Method`: the body's method, else missing, another, or malformed. */
function methodHeader(method: string, honest: boolean): fc.Arbitrary<string | undefined> {
  return either(
    honest,
    fc.constant(method),
    fc.oneof(
      fc.constant(undefined),
      fc.constantFrom("tools/call", "tools/list", "server/discover", ` ${method} `),
      hostileHeaderValue(method),
    ),
  );
}

/** `Mcp-Name`: the body's name as an honest client sends it (sentinel-encoded where it must be), or not. */
function nameHeader(name: unknown, honest: boolean): fc.Arbitrary<string | undefined> {
  const bodyName = typeof name === "string" ? name : undefined;
  const honestValue: fc.Arbitrary<string | undefined> =
    bodyName === undefined
      ? fc.constant(undefined)
      : plainHeaderValue(bodyName)
        ? fc.oneof(
            { weight: 3, arbitrary: fc.constant(bodyName) },
            { weight: 1, arbitrary: fc.constant(sentinel(bodyName)) },
          )
        : fc.constant(sentinel(bodyName));
  const basis = bodyName ?? "ListMetrics";
  const encoded = Buffer.from(basis, "utf8").toString("base64");
  return either(
    honest,
    honestValue,
    fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(
        "ExecuteQuery",
        sentinel("ExecuteQuery"),
        sentinel(`${basis} `),
        // Broken base64: padding left out, characters outside the alphabet, not UTF-8, wrong case.
        `=?base64?${encoded.replace(/=+$/, "")}?=`,
        `=?base64?${encoded.slice(0, -1)}*?=`,
        `=?base64?${encoded.replace(/\+/g, "-").replace(/\//g, "_")}?=`,
        "=?base64?/w==?=",
        "=?base64?wMA=?=",
        "=?base64?7aCA?=",
        "=?base64??=",
        "=?base64?=",
        `=?BASE64?${encoded}?=`,
        `=?base64? ${encoded}?=`,
        basis.toLowerCase(),
      ),
      hostileHeaderValue(basis),
    ),
    4,
  );
}

/** A 2026-07-28 POST: the body, and the MCP headers that go with it. */
interface ModernContent {
  body: string | undefined;
  pairs: HeaderPair[];
}

function modernContentOf(honest: boolean): fc.Arbitrary<ModernContent> {
  return modernPayload(honest).chain((modern) =>
    fc
      .record({
        version: versionHeader(honest),
        method: methodHeader(modern.method, honest),
        name: nameHeader(modern.name, honest),
        /** A cut body: not JSON, answered `-32700` under the modern version header. */
        cut: honest ? fc.constant(undefined) : oneIn(20, fc.nat()),
      })
      .map(({ version, method, name, cut }) => {
        const whole = jsonText(modern.message);
        const body = cut === undefined ? whole : whole.slice(0, cut % Math.max(1, whole.length - 1));
        const pairs: HeaderPair[] = [];
        if (version !== undefined) pairs.push(["mcp-protocol-version", version]);
        if (method !== undefined) pairs.push(["mcp-method", method]);
        if (name !== undefined) pairs.push(["mcp-name", name]);
        return { body, pairs };
      }),
  );
}

/** A 2026-07-28 POST: three in five from an honest client. */
const modernContent: fc.Arbitrary<ModernContent> = fc.oneof(
  { weight: 3, arbitrary: modernContentOf(true) },
  { weight: 2, arbitrary: modernContentOf(false) },
);

/** JavaScript values that trip String(), template literals and property lookups. */
const HOSTILE: readonly unknown[] = [
  { toString: 1 },
  { toString: null, valueOf: null },
  Object.create(null),
  [{ toString: 1 }],
  [Object.create(null), "x"],
  Symbol("fuzz"),
  Object("boxed"),
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -0,
  "",
  [],
  {},
  null,
  undefined,
  true,
  0,
  "x".repeat(100_000),
];

export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  {
    weight: 2,
    arbitrary: fc.anything({
      maxDepth: 3,
      withNullPrototype: true,
      withBoxedValues: true,
      withObjectString: true,
      withSparseArray: true,
      withDate: true,
      withUnicodeString: true,
    }),
  },
);

const V2_FIELDS = [
  "headers",
  "headers.content-type",
  "headers.origin",
  "headers.mcp-session-id",
  "headers.x-fuzz",
  "requestContext",
  "requestContext.http",
  "requestContext.http.method",
  "requestContext.requestId",
  "requestContext.authorizer",
  "requestContext.authorizer.iam.userArn",
  "requestContext.authorizer.jwt.claims.sub",
  "rawPath",
  "body",
  "isBase64Encoded",
  "version",
  "cookies",
];
const V1_FIELDS = [
  "headers",
  "headers.Content-Type",
  "multiValueHeaders",
  "multiValueHeaders.content-type",
  "multiValueHeaders.x",
  "multiValueHeaders.Origin",
  "httpMethod",
  "path",
  "body",
  "isBase64Encoded",
  "requestContext",
  "requestContext.identity",
  "requestContext.identity.userArn",
  "requestContext.authorizer.claims.sub",
  "requestContext.requestId",
];

/** Sets `path` (dotted) in `target`, making objects on the way, as own data properties (never a setter). */
function plant(target: Record<string, unknown>, path: string, value: unknown): void {
  const names = path.split(".");
  let current: Record<string, unknown> = target;
  for (const name of names.slice(0, -1)) {
    const next = Object.hasOwn(current, name) ? current[name] : undefined;
    if (typeof next === "object" && next !== null && !Array.isArray(next)) {
      current = next as Record<string, unknown>;
    } else {
      const made: Record<string, unknown> = {};
      Object.defineProperty(current, name, {
        value: made,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      current = made;
    }
  }
  Object.defineProperty(current, names.at(-1) as string, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function titleCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

const base64Mode = fc.oneof(
  { weight: 8, arbitrary: fc.constant("plain" as const) },
  { weight: 2, arbitrary: fc.constant("encoded" as const) },
  { weight: 1, arbitrary: fc.constantFrom("flag-only" as const, "flag-string" as const, "bytes" as const) },
);

const remainingMs = fc.oneof(
  { weight: 6, arbitrary: fc.constant(30_000) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 2_500 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 10 }) },
);

/** What a POST carries: a body of any revision (most often legacy), with the headers it needs. */
interface HttpContent extends ModernContent {
  modern: boolean;
}

const httpContent: fc.Arbitrary<HttpContent> = fc.oneof(
  { weight: 3, arbitrary: allButOneIn(20, bodyText).map((body) => ({ body, pairs: [], modern: false })) },
  { weight: 1, arbitrary: modernContent.map((content) => ({ ...content, modern: true })) },
);

function httpEvent(shape: "v2" | "v1" | "url", pool: SessionPool): fc.Arbitrary<FuzzEvent> {
  return fc
    .record({
      method: httpMethod,
      path: httpPath,
      headers: headers(pool),
      content: httpContent,
      base64: base64Mode,
      randomBytes: fc.uint8Array({ maxLength: 64 }),
      principal,
      jwt: fc.boolean(),
      ownerPrincipal: fc.integer({ min: 0, max: 4 }),
      requestId: fc.oneof(fc.uuid(), text(20), long("r", 200, 5_000)),
      mutations: oneIn(
        6,
        fc.array(fc.tuple(fc.constantFrom(...(shape === "v1" ? V1_FIELDS : V2_FIELDS)), hostile), {
          minLength: 1,
          maxLength: 3,
        }),
      ),
      remainingMs,
    })
    .map((spec) => {
      // A pooled session is mostly presented by its owner, else 404.
      const caller =
        spec.headers.owner && spec.ownerPrincipal > 0 ? spec.headers.owner.principal : spec.principal;
      let body: string | undefined = spec.content.body;
      // A 2026-07-28 body comes with its own MCP headers, MCP-Protocol-Version among them.
      const pairs = spec.content.modern
        ? [...spec.headers.pairs.filter(([name]) => name !== "mcp-protocol-version"), ...spec.content.pairs]
        : spec.headers.pairs;
      let isBase64Encoded: unknown = false;
      if (body !== undefined || spec.base64 === "bytes") {
        switch (spec.base64) {
          case "encoded":
            body = Buffer.from(body ?? "").toString("base64");
            isBase64Encoded = true;
            break;
          case "flag-only":
            isBase64Encoded = true;
            break;
          case "flag-string":
            body = Buffer.from(body ?? "").toString("base64");
            isBase64Encoded = "true";
            break;
          case "bytes":
            body = Buffer.from(spec.randomBytes).toString("base64");
            isBase64Encoded = true;
            break;
          default:
            break;
        }
      }
      const event =
        shape === "v1"
          ? restApiEvent(spec.method, spec.path, pairs, body, isBase64Encoded, caller, spec)
          : httpApiEvent(shape, spec.method, spec.path, pairs, body, isBase64Encoded, caller, spec);
      for (const [field, value] of spec.mutations ?? []) plant(event, field, value);
      return {
        shape,
        event,
        remainingMs: spec.remainingMs,
        mutated: (spec.mutations ?? []).map(([field]) => field),
      };
    });
}

function httpApiEvent(
  shape: "v2" | "url",
  method: string,
  path: string,
  pairs: HeaderPair[],
  body: string | undefined,
  isBase64Encoded: unknown,
  caller: string | undefined,
  spec: { jwt: boolean; requestId: string },
): Record<string, unknown> {
  const headerObject: Record<string, unknown> = {};
  for (const [name, value] of pairs) plant(headerObject, name.toLowerCase(), value);
  const authorizer =
    caller === undefined
      ? undefined
      : spec.jwt && shape === "v2"
        ? { jwt: { claims: { sub: caller }, scopes: null } }
        : { iam: { userArn: caller, accountId: "123456789012" } };
  return {
    version: "2.0",
    routeKey: shape === "url" ? "$default" : `${method} ${path}`,
    rawPath: path,
    rawQueryString: "",
    headers: headerObject,
    requestContext: {
      accountId: "123456789012",
      apiId: "fuzz",
      domainName:
        shape === "url" ? "fuzz.lambda-url.us-east-1.on.aws" : "fuzz.execute-api.us-east-1.amazonaws.com",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "fuzz" },
      requestId: spec.requestId,
      stage: "$default",
      ...(authorizer ? { authorizer } : {}),
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded,
  };
}

function restApiEvent(
  method: string,
  path: string,
  pairs: HeaderPair[],
  body: string | undefined,
  isBase64Encoded: unknown,
  caller: string | undefined,
  spec: { jwt: boolean; requestId: string },
): Record<string, unknown> {
  const single: Record<string, unknown> = {};
  const multi: Record<string, unknown> = {};
  pairs.forEach(([name, value], index) => {
    // REST APIs keep the client's header case.
    const cased = index % 2 === 0 ? titleCase(name) : name;
    plant(single, cased, value);
    plant(multi, cased, [value]);
  });
  return {
    resource: "/{proxy+}",
    path,
    httpMethod: method,
    headers: single,
    multiValueHeaders: multi,
    queryStringParameters: null,
    requestContext: {
      requestId: spec.requestId,
      stage: "prod",
      identity: { userArn: spec.jwt ? null : (caller ?? null), sourceIp: "127.0.0.1" },
      ...(spec.jwt && caller !== undefined ? { authorizer: { claims: { sub: caller } } } : {}),
    },
    body: body ?? null,
    isBase64Encoded,
  };
}

/** A direct invocation: the payload as Lambda delivers it (JSON.parse of what the caller sent). */
const directPayload: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: payload },
  { weight: 1, arbitrary: modernMessage.map((modern) => modern.message) },
);

const directEvent: fc.Arbitrary<FuzzEvent> = fc
  .tuple(directPayload, remainingMs)
  .map(([value, remaining]) => {
    const textValue = jsonText(value);
    let event: unknown;
    try {
      event = JSON.parse(textValue);
    } catch {
      event = textValue;
    }
    return { shape: "direct" as const, event, remainingMs: remaining, mutated: [] };
  });

const arbitraryEvent: fc.Arbitrary<FuzzEvent> = fc
  .tuple(
    fc.oneof(
      hostile,
      fc.jsonValue({ maxDepth: 4 }),
      fc.record(
        {
          httpMethod: hostile,
          path: hostile,
          rawPath: hostile,
          requestContext: fc.oneof(hostile, fc.record({ http: hostile }, { requiredKeys: [] })),
          jsonrpc: fc.constantFrom("2.0", undefined),
          method: hostile,
          id: hostile,
          params: hostile,
        },
        { requiredKeys: [] },
      ),
    ),
    remainingMs,
  )
  .map(([event, remaining]) => ({ shape: "arbitrary" as const, event, remainingMs: remaining, mutated: [] }));

/** A tools/call's name and arguments, before they are a message. */
interface ToolCall {
  name: unknown;
  arguments: unknown;
}

/** Any tool, its arguments mostly valid. */
const anyToolCall: fc.Arbitrary<ToolCall> = fc.record({
  name: fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...TOOL_NAMES) },
    { weight: 1, arbitrary: fc.constantFrom(...MORE_TOOL_NAMES) },
  ),
  arguments: fc.oneof(
    { weight: 31, arbitrary: validArguments },
    { weight: 8, arbitrary: toolArguments },
    // A query naming what the stand-in Prometheus does (test/fuzz/upstream.ts, hostileUpstream.ts):
    // `hang` is an answer that never ends, the rest cheap (not the retried `drop` and `boom`).
    {
      weight: 4,
      arbitrary: fc.record({
        query: fc.constantFrom("hang", "junk", "wide", "slow").map((word) => `${word}_metric`),
      }),
    },
  ),
});

/**
 * A range query drawn or listed: what a chart reads (the hostile upstream's `legend` answer, the one
 * at the chart's point cap now and then: tens of MB each, and answers chosen by the URL's hash, with
 * timestamps no Date holds among them).
 */
const rangeToolCall: fc.Arbitrary<ToolCall> = fc.record({
  name: fc.constantFrom("PlotRangeQuery", "PlotRangeQuery", "ExecuteRangeQuery"),
  arguments: fc.record(
    {
      query: fc.oneof(
        { weight: 12, arbitrary: fc.constantFrom("up", "rate(up[5m])", "legend_metric") },
        { weight: 1, arbitrary: fc.constant("chart_metric") },
      ),
      start: validTime,
      end: validTime,
      step: fc.constantFrom("15s", "60"),
      title: fc.oneof(fc.constant(undefined), long("T", 100, 200)),
    },
    { requiredKeys: ["query", "start", "end", "step"] },
  ),
});

/** A well-formed tools/call of any tool, its arguments mostly valid: what reaches Prometheus. */
const toolCallMessage: fc.Arbitrary<Members> = fc
  .record({
    call: fc.oneof({ weight: 5, arbitrary: anyToolCall }, { weight: 1, arbitrary: rangeToolCall }),
    id: fc.oneof(fc.integer({ min: 1, max: 1_000 }), text(8)),
  })
  .map(
    ({ call, id }) =>
      new Members([
        ["jsonrpc", "2.0"],
        ["id", id],
        ["method", "tools/call"],
        ["params", { name: call.name, arguments: call.arguments }],
      ]),
  );

/**
 * A well-formed POST to /mcp (or direct invocation) of one tools/call, or a batch of two or three, with
 * no session (a configuration whose sessions are optional serves it): for a configuration that tests
 * what the tools make of their upstream's answers.
 */
export const toolCallEvent: fc.Arbitrary<FuzzEvent> = fc
  .record({
    shape: fc.constantFrom<"v2" | "v1" | "url" | "direct">("v2", "v1", "url", "direct"),
    calls: fc.array(toolCallMessage, { minLength: 1, maxLength: 3 }),
    requestId: fc.uuid(),
    remainingMs,
  })
  .map(({ shape, calls, requestId, remainingMs: remaining }): FuzzEvent => {
    const body = jsonText(calls.length === 1 ? calls[0] : calls);
    if (shape === "direct") return { shape, event: JSON.parse(body), remainingMs: remaining, mutated: [] };
    const pairs: HeaderPair[] = [
      ["content-type", "application/json"],
      ["accept", "application/json, text/event-stream"],
    ];
    const spec = { jwt: false, requestId };
    const event =
      shape === "v1"
        ? restApiEvent("POST", "/mcp", pairs, body, false, undefined, spec)
        : httpApiEvent(shape, "POST", "/mcp", pairs, body, false, undefined, spec);
    return { shape, event, remainingMs: remaining, mutated: [] };
  });

/** Any event, of any shape. */
export function fuzzEvent(pool: SessionPool): fc.Arbitrary<FuzzEvent> {
  return fc.oneof(
    { weight: 5, arbitrary: httpEvent("v2", pool) },
    { weight: 4, arbitrary: httpEvent("v1", pool) },
    { weight: 3, arbitrary: httpEvent("url", pool) },
    { weight: 4, arbitrary: directEvent },
    { weight: 1, arbitrary: arbitraryEvent },
  );
}
