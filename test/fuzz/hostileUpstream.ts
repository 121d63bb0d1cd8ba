import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { closeServer, listenLoopback } from "../support/net.js";

/**
 * A hostile Prometheus (and Alertmanager, under any path ending in `/api/v2/silences`) for the fuzz
 * suite's hostile-upstream configuration: its answers are shaped like the real ones for the path asked
 * (a query's vector or matrix, label names and values, series, metadata, alerts, rules, silences) and
 * then spoiled. What it does is chosen from the request (its query's words, else its URL), so that a
 * seed mostly replays it:
 *
 * | query contains | answer |
 * | --- | --- |
 * | `hang` | never ends: a slow drip of whitespace, a complete answer never closed, or an endless flood of elements |
 * | `junk` | 200, cut short (the body ends cleanly inside a value) |
 * | `drop` | 200, cut short: the connection is destroyed mid-body (Content-Length promised more) |
 * | `wide` | 200, huge label sets |
 * | `boom` | 503 whose error body is nested thousands deep (retried by the tools) |
 * | `bad` | 400 `bad_data` with a 100 KB message |
 * | `slow` | a normal answer after 150 ms |
 * | `chart` | a range query's answer at the chart's point cap: 181 series × 11,000 points (other shapes: normal) |
 * | `legend` | a range query's answer of ten series told apart by 100,000-character labels (as `label_join` makes) |
 *
 * Any other request: by a hash of its URL (method, path and query), one of HOSTILE_ANSWERS. A URL asked
 * again gets the same answer, except one without a query string (alerts, rules, silences), which takes
 * them in turn, as a `hang` query takes the never-ending answers in turn (a replay of one event alone
 * may then get another answer). Only a `hang` answer never ends, so that the harness can give those
 * events little time (the handler's deadline is what ends them). A request header `x-hostile-answer`
 * (tests) names the answer instead.
 */

/**
 * What the URL hash chooses among (never an answer that does not end), a repeated one more often.
 * Not a dropped connection, which the tools retry (twice, after a few hundred ms): it would take most of
 * the run's time; the query word `drop` asks for it.
 */
export const HOSTILE_ANSWERS = [
  "normal",
  "normal",
  "deep-element",
  "deep-element",
  "deep-element-100k",
  "deep-skeleton",
  "deep-near-limit",
  "deep-near-limit",
  "deep-error-200",
  "deep-error-422",
  "many-labels",
  "many-labels",
  "long-values",
  "truncated",
  "truncated",
  "huge-error",
  "odd-times",
] as const;
/** The answers a query's words choose (see the table above). */
const NEVER_ENDING = ["drip", "never-closed", "flood"] as const;
export type HostileAnswer =
  | (typeof HOSTILE_ANSWERS)[number]
  | (typeof NEVER_ENDING)[number]
  | "truncated-abrupt"
  | "deep-error-503"
  | "bad"
  | "slow"
  | "chart-sized"
  | "long-legend";

export interface HostileUpstream {
  /** The hostile server's base URL (use as PROMETHEUS_URL, and with `/alertmanager` as ALERTMANAGER_URL). */
  url: string;
  /** Answers given so far, by kind (for the report). */
  readonly answered: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

/** Nesting that overflows JSON.stringify's recursion (and any other recursive walk) when read whole. */
const DEEP = 5_000;
/** Nesting far past that: the scanner must stop at its limit without reading on. */
const VERY_DEEP = 100_000;
/** Total nesting of a `deep-near-limit` answer: under the scanner's limit of 64, so read, kept and rendered. */
const NEAR_LIMIT = 60;
/** Labels per series (or alert, or silence matchers) of a `many-labels` answer. */
const MANY_LABELS = 3_000;
/** Length of each long label value (`long-values`: a few of them). */
const LONG_VALUE = 200_000;
/** Interval of the drip of a never-ending answer. */
const DRIP_MS = 50;
/** One write of a flood: elements, written as fast as the client reads. */
const FLOOD_CHUNK_ELEMENTS = 2_000;
/** A `chart-sized` answer: PlotRangeQuery's point cap (src/charts/chartAnswer.ts MAX_CHART_POINTS) nearly reached. */
const CHART_SERIES = 181;
const CHART_POINTS = 11_000;
/** A `long-legend` answer: ten series whose one differing label is this long. */
const LEGEND_SERIES = 10;
const LEGEND_LABEL = 100_000;
/**
 * Timestamps no Date can hold (beyond ±8.64e15 ms), or that JSON.parse reads as Infinity, beside an
 * ordinary one: an `odd-times` answer's samples.
 */
const ODD_TIMES = ["1e300", "-9e15", "1e400", "1700000000"] as const;

const NOW = 1_700_000_000;

export async function startHostileUpstream(): Promise<HostileUpstream> {
  const answered: Record<string, number> = {};
  /** Requests per URL, for URLs that no argument varies (see choose). */
  const seen = new Map<string, number>();
  const server = createServer((request, response) => {
    response.on("error", () => undefined);
    void readAll(request).then(
      (form) => {
        const kind = choose(request, form, seen);
        answered[kind] = (answered[kind] ?? 0) + 1;
        serve(kind, request, response);
      },
      () => request.socket.destroy(),
    );
  });
  // A client that goes away mid-answer (as the handler does at its deadline) is no error here.
  server.on("connection", (socket) => socket.on("error", () => undefined));
  const url = await listenLoopback(server);
  return {
    url,
    answered,
    close: () => closeServer(server),
  };
}

async function readAll(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function choose(request: IncomingMessage, form: URLSearchParams, seen: Map<string, number>): HostileAnswer {
  const url = new URL(request.url ?? "/", "http://hostile");
  const query = url.searchParams.get("query") ?? form.get("query") ?? "";
  const key = `${request.method} ${url.pathname}?${url.search}${form.toString()}`;
  const forced = request.headers["x-hostile-answer"];
  if (typeof forced === "string") return forced as HostileAnswer;
  // The same URL asked again (a `hang` query has few; alerts, rules and silences without filters sent
  // upstream have one) takes the next answer in turn: else it would always get the same one.
  const turnOf = () => {
    const turn = seen.get(key) ?? 0;
    if (seen.size < 1_000 || seen.has(key)) seen.set(key, turn + 1);
    return turn;
  };
  if (query.includes("hang"))
    return NEVER_ENDING[(hash(key) + turnOf()) % NEVER_ENDING.length] as HostileAnswer;
  if (query.includes("junk")) return "truncated";
  if (query.includes("drop")) return "truncated-abrupt";
  if (query.includes("wide")) return hash(key) % 2 === 0 ? "many-labels" : "long-values";
  if (query.includes("boom")) return "deep-error-503";
  if (query.includes("bad")) return "bad";
  if (query.includes("slow")) return "slow";
  if (query.includes("chart")) return "chart-sized";
  if (query.includes("legend")) return "long-legend";
  const turn = url.search === "" && form.toString() === "" ? turnOf() : 0;
  return HOSTILE_ANSWERS[(hash(key) + turn) % HOSTILE_ANSWERS.length] as HostileAnswer;
}

// ---------------------------------------------------------------------------------------------
// Answers shaped like the real ones, by path.

type Shape =
  | "vector"
  | "matrix"
  | "names"
  | "series"
  | "metadata"
  | "alerts"
  | "rules"
  | "alertmanagers"
  | "silences"
  | "buildinfo";

function shapeOf(path: string): Shape {
  if (path.endsWith("/api/v2/silences")) return "silences";
  if (path.endsWith("/query_range")) return "matrix";
  if (path.endsWith("/labels") || /\/label\/[^/]*\/values$/.test(path)) return "names";
  if (path.endsWith("/series")) return "series";
  if (path.endsWith("/metadata")) return "metadata";
  if (path.endsWith("/alerts")) return "alerts";
  if (path.endsWith("/rules")) return "rules";
  if (path.endsWith("/alertmanagers")) return "alertmanagers";
  if (path.includes("/status/")) return "buildinfo";
  return "vector";
}

/** Where the spoiled value goes in one element (or how the labels are made huge). */
interface Spoil {
  /** A value nested this deep (as JSON text), put where the tools read a value. */
  deep?: string;
  /** Extra labels. */
  labels?: Record<string, string>;
}

function labelsWith(base: Record<string, string>, spoil: Spoil): Record<string, string> {
  return spoil.labels === undefined ? base : { ...base, ...spoil.labels };
}

/** One element of the streamed array (or, for `metadata` and `buildinfo`, the data object), as JSON text. */
function element(shape: Shape, i: number, spoil: Spoil): string {
  const deep = spoil.deep;
  const labels = (base: Record<string, string>) => JSON.stringify(labelsWith(base, spoil));
  switch (shape) {
    case "vector":
      return `{"metric":${labels({ __name__: "up", instance: `host-${i}:9100`, job: "node" })},"value":[${NOW},${deep ?? '"1"'}]}`;
    case "matrix":
      return `{"metric":${labels({ __name__: "up", instance: `host-${i}:9100` })},"values":[[${NOW},"1"],[${NOW + 15},${deep ?? '"0"'}]]}`;
    case "names":
      return deep ?? JSON.stringify(`name_${i}`);
    case "series":
      return deep === undefined
        ? labels({ __name__: "up", instance: `host-${i}:9100` })
        : `{"__name__":"up","instance":${deep}}`;
    case "metadata": {
      // One metric per extra label, its help the label's value.
      const more = Object.entries(spoil.labels ?? {}).map(
        ([name, value]) =>
          `,${JSON.stringify(name)}:[{"type":"counter","help":${JSON.stringify(value)},"unit":""}]`,
      );
      return `{"up":[{"type":"gauge","help":${deep ?? '"Whether the target is up."'},"unit":""}]${more.join("")}}`;
    }
    case "alerts":
      return `{"labels":${labels({ alertname: "HighErrorRate", severity: "page", pod: `pod-${i}` })},"annotations":{"summary":${deep ?? '"Error rate above 5%"'}},"state":"firing","activeAt":"2024-01-01T00:00:00Z","value":"1e+00"}`;
    case "rules":
      return `{"name":"group-${i}","file":"rules.yml","interval":60,"rules":[{"state":"firing","name":"HighErrorRate","query":"rate(errors[5m]) > 0.05","duration":300,"labels":${labels({ severity: "page" })},"annotations":{"summary":${deep ?? '"Errors"'}},"alerts":[${element("alerts", i, spoil)}],"health":"ok","type":"alerting"},{"name":"job:up:sum","query":"sum by (job) (up)","labels":{},"health":"ok","type":"recording"}]}`;
    case "alertmanagers":
      return `{"activeAlertmanagers":[{"url":${deep ?? '"http://alertmanager:9093/api/v2/alerts"'}}],"droppedAlertmanagers":[]}`;
    case "silences": {
      const matchers = spoil.labels
        ? Object.entries(spoil.labels).map(([name, value]) => ({
            name,
            value,
            isRegex: false,
            isEqual: true,
          }))
        : [{ name: "alertname", value: "HighErrorRate", isRegex: false, isEqual: true }];
      return `{"id":"silence-${i}","matchers":${JSON.stringify(matchers)},"startsAt":"2024-01-01T00:00:00Z","endsAt":"2030-01-01T00:00:00Z","updatedAt":"2024-01-01T00:00:00Z","createdBy":"fuzz","comment":${deep ?? '"maintenance"'},"status":{"state":"active"}}`;
    }
    case "buildinfo":
      return `{"version":${deep ?? '"2.53.0"'},"revision":"x","branch":"HEAD","buildUser":"fuzz","buildDate":"20240101","goVersion":"go1.22"}`;
  }
}

/**
 * A whole success answer: the envelope, and `count` elements. `skeletonExtra` goes into `data` beside
 * the streamed array (or the envelope, for a bare answer).
 */
function answerBody(shape: Shape, count: number, spoil: Spoil, skeletonExtra?: string): string {
  // Label names and values: the huge label set is the list itself.
  const elements =
    shape === "names" && spoil.labels !== undefined
      ? Object.values(spoil.labels)
          .map((value) => JSON.stringify(value))
          .join(",")
      : Array.from({ length: count }, (_, i) => element(shape, i, spoil)).join(",");
  const extra = skeletonExtra === undefined ? "" : `,"extra":${skeletonExtra}`;
  switch (shape) {
    case "silences":
      // Alertmanager's answer is a bare array: no skeleton to spoil, so the extra goes into an element.
      return skeletonExtra === undefined
        ? `[${elements}]`
        : `[${elements}${count > 0 ? "," : ""}${element(shape, count, { deep: skeletonExtra })}]`;
    case "vector":
    case "matrix":
      return `{"status":"success","data":{"resultType":"${shape}","result":[${elements}]${extra}}}`;
    case "names":
    case "series":
      return skeletonExtra === undefined
        ? `{"status":"success","data":[${elements}]}`
        : `{"status":"success","data":[${elements}],"warnings":[${skeletonExtra}]}`;
    case "alerts":
      return `{"status":"success","data":{"alerts":[${elements}]${extra}}}`;
    case "rules":
      return `{"status":"success","data":{"groups":[${elements}]${extra}}}`;
    case "metadata":
    case "alertmanagers":
    case "buildinfo": {
      const data = element(shape, 0, spoil);
      return `{"status":"success","data":${skeletonExtra === undefined ? data : `${data.slice(0, -1)}${extra}}`}}`;
    }
  }
}

/** An array nested `depth` deep, or objects, or both, as JSON text (built once per depth and kind). */
const deepCache = new Map<string, string>();
function deepValue(depth: number, kind: number): string {
  const key = `${depth} ${kind % 3}`;
  let text = deepCache.get(key);
  if (text === undefined) {
    if (kind % 3 === 0) text = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    else if (kind % 3 === 1) text = `${'{"a":'.repeat(depth)}"x"${"}".repeat(depth)}`;
    else text = `${'{"a":['.repeat(Math.ceil(depth / 2))}1${"]}".repeat(Math.ceil(depth / 2))}`;
    deepCache.set(key, text);
  }
  return text;
}

/** Nesting levels above a value the `deep` spoil replaces, by shape (so that near-limit stays under 64). */
const DEPTH_ABOVE: Record<Shape, number> = {
  vector: 5,
  matrix: 6,
  names: 3,
  series: 4,
  metadata: 5,
  alerts: 6,
  rules: 10,
  alertmanagers: 5,
  silences: 2,
  buildinfo: 3,
};

function manyLabels(count: number, salt: number): Record<string, string> {
  const labels: Record<string, string> = {};
  for (let i = 0; i < count; i++) labels[`label_${i}`] = `value-${salt}-${i}-${"é".repeat(i % 7)}`;
  return labels;
}

function longValues(salt: number): Record<string, string> {
  const labels: Record<string, string> = {};
  for (let i = 0; i < 3; i++) labels[`long_${i}`] = `${salt}`.padEnd(LONG_VALUE, i === 1 ? '"\\\n' : "x");
  return labels;
}

/** A vector's or matrix's samples at ODD_TIMES (another shape: its normal answer, which has no times). */
function oddTimesBody(shape: Shape): string {
  if (shape === "vector") {
    const result = ODD_TIMES.map(
      (time, i) => `{"metric":{"__name__":"up","instance":"odd-${i}"},"value":[${time},"1"]}`,
    );
    return `{"status":"success","data":{"resultType":"vector","result":[${result.join(",")}]}}`;
  }
  if (shape === "matrix") {
    const values = ODD_TIMES.map((time, i) => `[${time},"${i}"]`).join(",");
    return `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up","instance":"odd"},"values":[${values}]}]}}`;
  }
  return answerBody(shape, 3, {});
}

/** Built once (tens of MB): every `chart-sized` answer is the same. */
let chartSized: string | undefined;
function chartSizedBody(): string {
  if (chartSized === undefined) {
    const series: string[] = [];
    for (let s = 0; s < CHART_SERIES; s++) {
      const values: string[] = [];
      for (let p = 0; p < CHART_POINTS; p++) values.push(`[${NOW + p * 15},"${(s * 7 + p) % 97}"]`);
      series.push(
        `{"metric":{"__name__":"wide_seconds","pod":"pod-${s}","job":"api"},"values":[${values.join(",")}]}`,
      );
    }
    chartSized = `{"status":"success","data":{"resultType":"matrix","result":[${series.join(",")}]}}`;
  }
  return chartSized;
}

function longLegendBody(salt: number): string {
  const series = Array.from({ length: LEGEND_SERIES }, (_, s) => {
    const joined = `${s}-${salt}-`.padEnd(LEGEND_LABEL, s % 2 === 0 ? "x" : "é");
    const values = Array.from({ length: 300 }, (_, p) => `[${NOW + p * 15},"${(s + p) % 11}"]`);
    return `{"metric":{"__name__":"up","joined":${JSON.stringify(joined)}},"values":[${values.join(",")}]}`;
  });
  return `{"status":"success","data":{"resultType":"matrix","result":[${series.join(",")}]}}`;
}

function send(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(body);
}

/** An answer sent whole: its status, body and Content-Type. */
interface Whole {
  status: number;
  body: string;
  type?: string;
}

function wholeAnswer(kind: HostileAnswer, shape: Shape, salt: number): Whole | undefined {
  const deepError = (status: number, errorType: string): Whole => ({
    status,
    body: `{"status":"error","errorType":"${errorType}","error":${deepValue(DEEP, salt)}}`,
  });
  switch (kind) {
    case "normal":
      return { status: 200, body: answerBody(shape, 3, {}) };
    case "deep-element":
      return { status: 200, body: answerBody(shape, 2, { deep: deepValue(DEEP, salt) }) };
    case "deep-element-100k":
      return { status: 200, body: answerBody(shape, 1, { deep: deepValue(VERY_DEEP, salt) }) };
    case "deep-skeleton":
      return { status: 200, body: answerBody(shape, 2, {}, deepValue(DEEP, salt)) };
    case "deep-near-limit": {
      const levels = Math.max(1, NEAR_LIMIT - DEPTH_ABOVE[shape]);
      return { status: 200, body: answerBody(shape, 2, { deep: deepValue(levels, 0) }) };
    }
    case "deep-error-200":
      return deepError(200, "internal");
    case "deep-error-422":
      return deepError(422, "execution");
    case "deep-error-503":
      return deepError(503, "internal");
    case "bad":
      return {
        status: 400,
        body: JSON.stringify({
          status: "error",
          errorType: "bad_data",
          error: `parse error: ${"x".repeat(100_000)}`,
        }),
      };
    case "huge-error":
      // A megabyte of HTML where an answer should be (a proxy's error page): read 64 KB of, not retried.
      return { status: 404, body: `<html>${"e".repeat(1_000_000)}</html>`, type: "text/html" };
    case "many-labels":
      return { status: 200, body: answerBody(shape, 2, { labels: manyLabels(MANY_LABELS, salt) }) };
    case "long-values":
      return { status: 200, body: answerBody(shape, 1, { labels: longValues(salt) }) };
    case "truncated": {
      const body = answerBody(shape, 40, {});
      return { status: 200, body: body.slice(0, 1 + (salt % (body.length - 1))) };
    }
    case "odd-times":
      return { status: 200, body: oddTimesBody(shape) };
    case "chart-sized":
      return { status: 200, body: shape === "matrix" ? chartSizedBody() : answerBody(shape, 3, {}) };
    case "long-legend":
      return { status: 200, body: shape === "matrix" ? longLegendBody(salt) : answerBody(shape, 3, {}) };
    default:
      return undefined;
  }
}

function serve(kind: HostileAnswer, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? "/", "http://hostile");
  const shape = shapeOf(url.pathname);
  const salt = hash(request.url ?? "");
  const whole = wholeAnswer(kind, shape, salt);
  if (whole !== undefined) {
    send(response, whole.status, whole.body, whole.type === undefined ? {} : { "content-type": whole.type });
    return;
  }
  switch (kind) {
    case "slow": {
      const timer = setTimeout(() => send(response, 200, answerBody(shape, 3, {})), 150);
      timer.unref();
      response.on("close", () => clearTimeout(timer));
      break;
    }
    case "truncated-abrupt": {
      const body = Buffer.from(answerBody(shape, 40, {}));
      response.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
      response.write(body.subarray(0, 1 + (salt % (body.length - 1))), () => request.socket.destroy());
      break;
    }
    case "drip":
      drip(response, shape);
      break;
    case "never-closed":
      response.writeHead(200, { "content-type": "application/json" });
      // Complete, valid, and never ended: the client cannot know no more is coming.
      response.write(answerBody(shape, 3, {}));
      break;
    case "flood":
      flood(response, shape);
      break;
    default:
      send(response, 200, answerBody(shape, 1, {}));
  }
}

/** The start of an answer, then one space every DRIP_MS, for as long as the client listens. */
function drip(response: ServerResponse, shape: Shape): void {
  const body = answerBody(shape, 3, {});
  response.writeHead(200, { "content-type": "application/json" });
  response.write(body.slice(0, Math.floor(body.length / 2)));
  const timer = setInterval(() => {
    if (response.destroyed || response.writableEnded) clearInterval(timer);
    else response.write(" ");
  }, DRIP_MS);
  timer.unref();
  response.on("close", () => clearInterval(timer));
}

/** The start of an answer, then elements as fast as the client reads them, never ending. */
function flood(response: ServerResponse, path: Shape): void {
  // An answer with no streamed array floods a vector's: the client reads it as its skeleton.
  const shape = path === "metadata" || path === "buildinfo" || path === "alertmanagers" ? "vector" : path;
  const body = answerBody(shape, 1, {});
  // Everything up to and including the first element: the rest is more elements, forever.
  const first = element(shape, 0, {});
  const head = body.slice(0, body.indexOf(first) + first.length);
  const chunk = `,${first}`.repeat(FLOOD_CHUNK_ELEMENTS);
  response.writeHead(200, { "content-type": "application/json" });
  response.write(head);
  const pump = () => {
    while (!response.destroyed && !response.writableEnded) {
      if (!response.write(chunk)) {
        response.once("drain", pump);
        return;
      }
    }
  };
  pump();
}
