import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "../../src/context.js";
import { ToolError } from "../../src/errors.js";
import { type AnswerSink, readAnswer } from "../../src/prometheus/answerReader.js";
import {
  AnswerFormatError,
  AnswerScanner,
  type AnswerScannerOptions,
} from "../../src/prometheus/answerStream.js";
import type { AmpCallOptions, ControlPlane } from "../../src/prometheus/controlPlane.js";
import { buildQueryString } from "../../src/prometheus/queryString.js";
import { type TargetSettings, Workspaces } from "../../src/prometheus/workspaces.js";
import { selectorsIn } from "../../src/promql/selectors.js";
import catalog from "../../tools/catalog.json" with { type: "json" };
import { instructionsFor, tools, toolsNamed } from "../../tools/index.js";
import { labelHint } from "../../tools/queryHints.js";
import { testContext } from "../support/context.js";
import { makeToolCall } from "../support/toolCall.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

describe("buildQueryString", () => {
  it("repeats a list's key in order, percent-encodes keys and values, and drops undefined entries", () => {
    expect(
      buildQueryString({
        "match[]": ["a", 'up{job="x y"}'],
        start: undefined,
        end: "2024-01-01T00:00:00Z",
        limit: "10",
      }),
    ).toBe("match%5B%5D=a&match%5B%5D=up%7Bjob%3D%22x%20y%22%7D&end=2024-01-01T00%3A00%3A00Z&limit=10");
  });

  it("writes a space as %20, never +, and leaves RFC 3986 unreserved characters alone", () => {
    expect(buildQueryString({ query: "sum by (job) (up)" })).toBe("query=sum%20by%20%28job%29%20%28up%29");
    expect(buildQueryString({ "a-b_c.d~": "A-z_0.9~" })).toBe("a-b_c.d~=A-z_0.9~");
    expect(buildQueryString({ q: "a+b!*'" })).toBe("q=a%2Bb%21%2A%27");
  });

  it("gives nothing for no defined entries, and nothing for an empty list", () => {
    expect(buildQueryString({})).toBe("");
    expect(buildQueryString({ a: undefined })).toBe("");
    expect(buildQueryString({ "match[]": [], b: "1" })).toBe("b=1");
  });
});

/** The bytes split at the given points (any byte: inside a token, an escape, a UTF-8 character). */
function chunked(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.slice(at, point));
    at = point;
  }
  return chunks;
}

/** Scans the text pushed in those chunks: the elements streamed (as text) and what end() returns. */
function scan(
  text: string,
  cuts: readonly number[],
  options: AnswerScannerOptions,
): { elements: string[]; skeleton: unknown } {
  const elements: string[] = [];
  const scanner = new AnswerScanner((bytes) => elements.push(decoder.decode(bytes)), options);
  for (const chunk of chunked(encoder.encode(text), cuts)) scanner.push(chunk);
  return { elements, skeleton: scanner.end() };
}

const cutPoints = fc.array(fc.nat(), { maxLength: 12 });

describe("AnswerScanner's streamedKey and bare options", () => {
  const ALERTS = [
    '{"labels":{"alertname":"A","q":"]}\\"[{,"},"state":"firing"}',
    '{ "labels" : { "alertname" : "😀é" } , "state" : "pending" , "value" : "1e+00" }',
    "[1, [2, {}]]",
    '"a string \\\\"',
  ];
  const alertsAnswer =
    '{"status":"success","data":{"result":[{"x":1},{"x":2}],\n "alerts" : [ ' +
    ALERTS.join(" ,\n ") +
    ' ] ,"extra":{"alerts":[9]}},"warnings":["w"]}';

  it("streams the elements of data.<streamedKey> and only those, whatever the chunks", () => {
    fc.assert(
      fc.property(cutPoints, (cuts) => {
        const { elements, skeleton } = scan(alertsAnswer, cuts, { streamedKey: "alerts" });
        expect(elements).toEqual(ALERTS);
        expect(skeleton).toEqual({
          status: "success",
          // data.result stays in the skeleton; data.extra.alerts is not under data itself.
          data: { result: [{ x: 1 }, { x: 2 }], alerts: [], extra: { alerts: [9] } },
          warnings: ["w"],
        });
      }),
      { numRuns: 200 },
    );
  });

  it("streams data.result by default, leaving data.alerts in the skeleton", () => {
    const { elements, skeleton } = scan(alertsAnswer, [], {});
    expect(elements).toEqual(['{"x":1}', '{"x":2}']);
    expect((skeleton as { data: { alerts: unknown[] } }).data.alerts).toHaveLength(ALERTS.length);
  });

  it("rejects a repeated data.<streamedKey>, whatever the chunks", () => {
    const repeated = '{"status":"success","data":{"alerts":[{"a":1}],"alerts":[{"a":2}]}}';
    fc.assert(
      fc.property(cutPoints, (cuts) => {
        expect(() => scan(repeated, cuts, { streamedKey: "alerts" })).toThrow(AnswerFormatError);
        expect(() => scan(repeated, cuts, { streamedKey: "alerts" })).toThrow('"data.alerts" twice');
      }),
      { numRuns: 100 },
    );
  });

  it("streams a bare top-level array's elements and ends with [], whatever the chunks", () => {
    const ELEMENTS = ['{"a":[1,2],"b":"}]"}', '"x\\"]"', "3.5e2", '[ {"b":null} ]', "true", '{"é":"😀"}'];
    const bare = ` \n[ ${ELEMENTS.join(" , ")} ]\n`;
    fc.assert(
      fc.property(cutPoints, (cuts) => {
        expect(scan(bare, cuts, { bare: true })).toEqual({ elements: ELEMENTS, skeleton: [] });
        expect(scan("[]", cuts, { bare: true })).toEqual({ elements: [], skeleton: [] });
      }),
      { numRuns: 200 },
    );
  });

  it("without bare, a top-level array is all skeleton", () => {
    expect(scan("[1,2]", [], {})).toEqual({ elements: [], skeleton: [1, 2] });
  });
});

/** A sink that records the elements it was given and what finish was called with. */
function recordingSink(
  format?: AnswerSink<unknown>["format"],
): AnswerSink<{ data: unknown; bytes: number; elements: unknown[] }> {
  const elements: unknown[] = [];
  return {
    ...(format === undefined ? {} : { format }),
    element: (raw) => elements.push(JSON.parse(decoder.decode(raw))),
    finish: (data, bytes) => ({ data, bytes, elements }),
  };
}

/** A 200 answer whose body arrives in the given chunks. */
function okResponse(body: string, cuts: readonly number[] = []): Response {
  const chunks = chunked(encoder.encode(body), cuts);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) if (chunk.length > 0) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "application/json" } });
}

describe("readAnswer", () => {
  it("with a bare format, reads a JSON array body as the answer: its elements streamed, finish([], bytes)", async () => {
    await fc.assert(
      fc.asyncProperty(cutPoints, async (cuts) => {
        const body = '[{"id":"s1","status":{"state":"active"}}, {"id":"s2"}]';
        const read = await readAnswer(
          okResponse(body, cuts),
          "Alertmanager's answer",
          recordingSink({ bare: true }),
          1e6,
        );
        expect(read).toEqual({
          ok: true,
          value: {
            data: [],
            bytes: encoder.encode(body).length,
            elements: [{ id: "s1", status: { state: "active" } }, { id: "s2" }],
          },
        });
      }),
      { numRuns: 30 },
    );
  });

  it("with a bare format, an object body is not a success", async () => {
    const body = '{"code":400,"message":"bad matcher"}';
    const read = await readAnswer(
      okResponse(body),
      "Alertmanager's answer",
      recordingSink({ bare: true }),
      1e6,
    );
    expect(read.ok).toBe(false);
    expect(read).toEqual({ ok: false, body });
  });

  it("by default, requires Prometheus's success envelope", async () => {
    const envelope =
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"a"},"value":[1,"1"]}]}}';
    expect(
      await readAnswer(okResponse(envelope, [17, 60]), "Prometheus's answer", recordingSink(), 1e6),
    ).toEqual({
      ok: true,
      value: {
        data: { resultType: "vector", result: [] },
        bytes: encoder.encode(envelope).length,
        elements: [{ metric: { job: "a" }, value: [1, "1"] }],
      },
    });
    // A bare array, or an error envelope, is not a success without the bare format.
    expect(await readAnswer(okResponse("[1,2]"), "Prometheus's answer", recordingSink(), 1e6)).toEqual({
      ok: false,
      body: "[1,2]",
    });
    const error = '{"status":"error","errorType":"bad_data","error":"parse error"}';
    expect(await readAnswer(okResponse(error), "Prometheus's answer", recordingSink(), 1e6)).toEqual({
      ok: false,
      body: error,
    });
  });

  it("with streamedKey, streams data.<key> of the envelope", async () => {
    const body = '{"status":"success","data":{"alerts":[{"state":"firing"},{"state":"pending"}]}}';
    const read = await readAnswer(
      okResponse(body, [30]),
      "Prometheus's answer",
      recordingSink({ streamedKey: "alerts" }),
      1e6,
    );
    expect(read).toEqual({
      ok: true,
      value: {
        data: { alerts: [] },
        bytes: encoder.encode(body).length,
        elements: [{ state: "firing" }, { state: "pending" }],
      },
    });
  });
});

const WORKSPACE_ENDPOINT = "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-abc/";

/** A control plane whose DescribeWorkspace answers for any workspace, recording the calls. */
function fakeControlPlane(): {
  controlPlane: ControlPlane;
  described: Array<{ id: string; region: string }>;
} {
  const described: Array<{ id: string; region: string }> = [];
  const fake = {
    describeWorkspace: async (workspaceId: string, options: AmpCallOptions, _context: RequestContext) => {
      described.push({ id: workspaceId, region: options.region });
      return { prometheusEndpoint: WORKSPACE_ENDPOINT, status: "ACTIVE" };
    },
  };
  return { controlPlane: fake as unknown as ControlPlane, described };
}

function workspaces(settings: Partial<TargetSettings>): {
  workspaces: Workspaces;
  described: Array<{ id: string; region: string }>;
} {
  const { controlPlane, described } = fakeControlPlane();
  const all: TargetSettings = { prometheusUrl: undefined, defaultRegion: "us-east-1", ...settings };
  return { workspaces: new Workspaces(controlPlane, all), described };
}

describe("Workspaces.alertmanager", () => {
  it("uses ALERTMANAGER_URL when no workspace_id is given: trailing slashes trimmed, then /api/v2", async () => {
    const { workspaces: w, described } = workspaces({
      prometheusUrl: "http://prometheus:9090",
      alertmanagerUrl: "http://alertmanager:9093//",
    });
    const target = await w.alertmanager({}, testContext());
    expect(target.apiUrl).toBe("http://alertmanager:9093/api/v2");
    expect(target.basicAuth).toBeUndefined();
    expect(target.region).toBe("us-east-1");
    expect(described).toEqual([]);
  });

  it("moves ALERTMANAGER_URL's user:password@ into basicAuth, out of the URL", async () => {
    const { workspaces: w } = workspaces({ alertmanagerUrl: "https://alice:s%40cret@am.example.com/am/" });
    const target = await w.alertmanager({}, testContext());
    expect(target.apiUrl).toBe("https://am.example.com/am/api/v2");
    expect(target.basicAuth).toBe(`Basic ${Buffer.from("alice:s@cret").toString("base64")}`);
    expect(`${target.apiUrl} ${target.serverUrl}`).not.toMatch(/alice|cret|@/);
  });

  it("uses the workspace's Alertmanager when a workspace_id is given, even with ALERTMANAGER_URL set", async () => {
    const { workspaces: w, described } = workspaces({
      prometheusUrl: "http://prometheus:9090",
      alertmanagerUrl: "http://alertmanager:9093",
    });
    const target = await w.alertmanager({ workspaceId: "ws-abc" }, testContext());
    expect(target.apiUrl).toBe(
      "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-abc/alertmanager/api/v2",
    );
    expect(target.region).toBe("us-east-1");
    expect(described).toEqual([{ id: "ws-abc", region: "us-east-1" }]);
  });

  it("uses the Alertmanager of the workspace PROMETHEUS_URL names when ALERTMANAGER_URL is unset", async () => {
    const { workspaces: w, described } = workspaces({
      prometheusUrl: "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-xyz/api/v1/",
      defaultRegion: "eu-west-1",
    });
    const target = await w.alertmanager({}, testContext());
    expect(target.apiUrl).toBe(
      "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-xyz/alertmanager/api/v2",
    );
    expect(described).toEqual([]);
  });

  it("refuses a plain PROMETHEUS_URL without ALERTMANAGER_URL, saying what to configure", async () => {
    const { workspaces: w } = workspaces({ prometheusUrl: "http://prometheus:9090" });
    const error = await w.alertmanager({}, testContext()).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message.startsWith("No Alertmanager is configured")).toBe(true);
    expect((error as ToolError).message).toContain("ALERTMANAGER_URL");
  });
});

describe("labelHint", () => {
  const ALL = ["ExecuteQuery", "ExecuteRangeQuery", "ListMetrics", "ListLabels", "ListLabelValues"];
  const hint = (query: string, range: boolean, served: readonly string[] = ALL) =>
    labelHint(query, range, makeToolCall({ served: new Set(served) }))();

  it("sends the model to ListLabels and ListLabelValues for a metric matched on its labels", async () => {
    const text = await hint('http_requests_total{status=~"5.."}', false);
    expect(text).toContain("ListLabels with match http_requests_total");
    expect(text).toContain("ListLabelValues (label status, match http_requests_total)");
    expect(text).toContain("ListMetrics");
  });

  it("looks through functions, and takes the first selector with a name and labels", async () => {
    const text = await hint('sum(rate(a[5m])) / sum(rate(b{code="500"}[5m]))', true);
    expect(text).toContain("ListLabels with match b ");
    expect(text).toContain("label code, match b");
  });

  it("gives nothing when no selector has both a metric name and labels, or the query does not parse", async () => {
    expect(await hint("up", false)).toBeUndefined();
    expect(await hint("sum(rate(x[5m]))", false)).toBeUndefined();
    expect(await hint('{job="api"}', false)).toBeUndefined();
    expect(await hint('rate(x{a="b"}[5m]', false)).toBeUndefined();
    expect(await hint("sum(", true)).toBeUndefined();
  });

  it("names only the tools served", async () => {
    const query = 'http_requests_total{status=~"5.."}';
    expect(await hint(query, false, ["ExecuteQuery", "ListMetrics", "ListLabelValues"])).toBeUndefined();
    const noValues = await hint(query, false, ["ExecuteQuery", "ListLabels"]);
    expect(noValues).toContain("ListLabels with match http_requests_total");
    expect(noValues).not.toContain("ListLabelValues");
    expect(noValues).not.toContain("ListMetrics");
    expect(noValues).not.toContain("ExecuteRangeQuery");
    expect(await hint(query, false)).toContain("or use ExecuteRangeQuery");
    expect(await hint('{"http.requests.total", code="500"}', false)).toContain(
      "ListLabels with match http.requests.total",
    );
  });

  it("words an instant query's hint differently from a range query's", async () => {
    const query = 'http_requests_total{status=~"5.."}';
    const instant = await hint(query, false);
    const range = await hint(query, true);
    expect(instant).toBeDefined();
    expect(range).toBeDefined();
    expect(instant).not.toBe(range);
    expect(range).toContain("widen the time range");
    expect(instant).toContain("5 minutes");
  });
});

describe("selectorsIn", () => {
  it("gives each vector selector's metric name and the labels it matches on, in order", async () => {
    expect(await selectorsIn('rate(a{b="1",c=~"2"}[5m]) / on() d')).toEqual([
      { metric: "a", labels: ["b", "c"] },
      { metric: "d", labels: [] },
    ]);
    expect(await selectorsIn('sum by (job) (x{k!="v"} offset 5m) and ignoring(k) y @ 100')).toEqual([
      { metric: "x", labels: ["k"] },
      { metric: "y", labels: [] },
    ]);
  });

  it("leaves __name__ out of the labels", async () => {
    const [selector, ...rest] = (await selectorsIn('{__name__="x", y="z"}')) ?? [];
    expect(rest).toEqual([]);
    expect(selector?.labels).toEqual(["y"]);
  });

  it("unquotes quoted UTF-8 label names", async () => {
    expect(await selectorsIn('a{"ünï.label"="v", plain="w"}')).toEqual([
      { metric: "a", labels: ["ünï.label", "plain"] },
    ]);
  });

  it("takes a quoted name alone in the braces as the metric name (Prometheus 3 UTF-8 names)", async () => {
    expect(await selectorsIn('{"http.requests.total", code="500"}')).toEqual([
      { metric: "http.requests.total", labels: ["code"] },
    ]);
    expect(await selectorsIn('{"a.b"}')).toEqual([{ metric: "a.b", labels: [] }]);
  });

  it("gives undefined for a query that does not parse", async () => {
    expect(await selectorsIn('rate(a{b="1"}[5m]')).toBeUndefined();
    expect(await selectorsIn("sum(")).toBeUndefined();
    expect(await selectorsIn('a{b="unterminated}')).toBeUndefined();
  });
});

const ALL_TOOLS = tools.map((tool) => tool.name);
/** Every tool after the Python server's five. */
const NEW_TOOLS = ALL_TOOLS.slice(5);

describe("instructionsFor", () => {
  it("with every tool, names them in the order of an investigation: alerts, then names, then queries", () => {
    const text = instructionsFor(ALL_TOOLS);
    const at = (name: string) => text.indexOf(name);
    for (const name of ALL_TOOLS) expect(text, name).toContain(name);
    expect(at("GetHealthOverview")).toBeLessThan(at("GetAlertHistory"));
    expect(at("GetAlertHistory")).toBeLessThan(at("ListAlerts"));
    expect(at("ListAlerts")).toBeLessThan(at("ListMetrics"));
    expect(at("ListMetrics")).toBeLessThan(at("ExecuteQuery"));
    expect(at("ListRules")).toBeLessThan(at("ListMetrics"));
  });

  it("with the core five, names none of the tools added since", () => {
    const core = catalog.groups.core;
    const text = instructionsFor(core);
    for (const name of core.filter((name) => name !== "GetServerInfo")) expect(text, name).toContain(name);
    for (const name of NEW_TOOLS) expect(text, name).not.toContain(name);
  });

  it("with ExecuteQuery alone, sends the model to no tool it cannot call", () => {
    const text = instructionsFor(["ExecuteQuery"]);
    expect(text).toContain("ExecuteQuery");
    for (const name of ALL_TOOLS.filter((name) => name !== "ExecuteQuery"))
      expect(text, name).not.toContain(name);
  });
});

describe("toolsNamed and the tool catalog", () => {
  it("keeps tools/list order whatever the order of the names", () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(ALL_TOOLS), (names) => {
        const named = toolsNamed(names).map((tool) => tool.name);
        expect(named).toEqual(ALL_TOOLS.filter((name) => names.includes(name)));
      }),
      { numRuns: 100 },
    );
  });

  it("throws on an unknown name", () => {
    expect(() => toolsNamed(["ExecuteQuery", "NoSuchTool"])).toThrow("No such tool: NoSuchTool");
    expect(() => toolsNamed(["executequery"])).toThrow(/No such tool/);
  });

  it("puts every tool in exactly one group, and names only tools, in tools/list order", () => {
    const grouped = Object.values(catalog.groups).flat();
    for (const name of ALL_TOOLS)
      expect(
        grouped.filter((one) => one === name),
        name,
      ).toHaveLength(1);
    for (const name of grouped) expect(ALL_TOOLS, name).toContain(name);
    // TOOLS resolves to names in the catalog's order, which must be tools/list's.
    expect(grouped).toEqual(ALL_TOOLS);
  });

  it("gives every tool its IAM actions, and no action to a tool that does not exist", () => {
    expect(Object.keys(catalog.actions).sort()).toEqual([...ALL_TOOLS].sort());
    for (const [name, actions] of Object.entries(catalog.actions)) {
      expect(actions.length, name).toBeGreaterThan(0);
      for (const action of actions) expect(action, name).toMatch(/^aps:[A-Za-z]+$/);
    }
  });
});
