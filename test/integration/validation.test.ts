import { describe, expect, it } from "vitest";
import { z } from "zod";
import { encodeRfc3986 } from "../../src/prometheus/queryString.js";
import { normaliseApiUrl, workspaceIdFromUrl } from "../../src/prometheus/workspaces.js";
import {
  ExecuteQuery,
  ExecuteRangeQuery,
  FindSeries,
  GetAvailableWorkspaces,
  GetMetricMetadata,
  GetServerInfo,
  ListAlerts,
  ListLabels,
  ListLabelValues,
  ListMetrics,
  ListRules,
  ListSilences,
  tools,
} from "../../tools/index.js";
import { stepSeconds } from "../../tools/relativeTime.js";
import type { Tool } from "../../tools/types.js";
import { ToolError } from "../../tools/types.js";
import { callTool, makeToolCall, toolError, validationErrors } from "../support/toolCall.js";

const RANGE = { query: "up", start: "1700000000", end: "1700003600", step: "15s" };

describe("tool definitions", () => {
  it("lists the Python server's five tools first, in its registration order, then ours", () => {
    expect(tools.map((tool) => tool.name).slice(0, 5)).toEqual([
      "ExecuteQuery",
      "ExecuteRangeQuery",
      "ListMetrics",
      "GetServerInfo",
      "GetAvailableWorkspaces",
    ]);
    expect(tools).toHaveLength(15);
  });

  it.each([
    [
      "ExecuteQuery",
      ExecuteQuery,
      ["workspace_id", "query", "time", "region", "profile", "limit", "order", "exact", "summary"],
      ["query"],
    ],
    [
      "ExecuteRangeQuery",
      ExecuteRangeQuery,
      [
        "workspace_id",
        "query",
        "start",
        "end",
        "step",
        "region",
        "profile",
        "limit",
        "order",
        "exact",
        "summary",
      ],
      ["query", "start", "end", "step"],
    ],
    ["ListMetrics", ListMetrics, ["workspace_id", "region", "profile", "limit", "match"], []],
    ["GetServerInfo", GetServerInfo, ["workspace_id", "region", "profile"], []],
    ["GetAvailableWorkspaces", GetAvailableWorkspaces, ["region", "profile"], []],
  ] as [string, Tool, string[], string[]][])(
    "%s has the Python parameter names and required set (and our optional limit, order, exact, summary and match last)",
    (name, tool, names, required) => {
      expect(tool.name).toBe(name);
      const schema = z.toJSONSchema(tool.inputSchema, { io: "input" }) as {
        properties: Record<string, { type?: string | string[]; anyOf?: { type: string }[] }>;
        required?: string[];
      };
      expect(Object.keys(schema.properties)).toEqual(names);
      expect(schema.required ?? []).toEqual(required);
      for (const parameter of names) {
        const property = schema.properties[parameter];
        if (required.includes(parameter)) expect(property?.type).toBe("string");
        // match: one selector or a list of them.
        else if (parameter === "match")
          expect(property?.anyOf?.map((option) => option.type)).toStrictEqual(["string", "array", "null"]);
        // exact and summary: switches.
        else if (parameter === "exact" || parameter === "summary")
          expect(property?.type).toStrictEqual(["boolean", "null"]);
        else expect(property?.anyOf?.map((option) => option.type)).toEqual(["string", "null"]);
      }
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
      expect(tool.description.length).toBeGreaterThan(40);
      expect(() => z.toJSONSchema(tool.outputSchema)).not.toThrow();
    },
  );
});

describe("input validation", () => {
  it.each(["1700000000", "1700000000.25", "2023-11-14T22:13:20Z", "2023-11-14T22:13:20.123456789+05:30"])(
    "accepts the time %s",
    (time) => {
      expect(validationErrors(ExecuteQuery, { query: "up", time })).toEqual([]);
    },
  );

  it.each([
    "yesterday",
    "",
    "2023-13-01T00:00:00Z",
    "2023-02-30T00:00:00Z",
    "2023-11-14 22:13:20",
    "2023-11-14T22:13:20",
    "-5",
    "1e9",
  ])("rejects the time %j with a readable message", (time) => {
    expect(validationErrors(ExecuteQuery, { query: "up", time })).toEqual([
      "time: time must be an RFC 3339 timestamp (e.g. 2023-11-14T22:13:20Z), Unix seconds (e.g. 1700000000 or 1700000000.5), now, or now-<duration> (e.g. now-5m, now-1h30m, now-2d)",
    ]);
  });

  it("rejects bad range bounds naming the parameter", () => {
    expect(
      validationErrors(ExecuteRangeQuery, { ...RANGE, start: "now+1h", end: "soon" }).map(
        (m) => m.split(":")[0],
      ),
    ).toEqual(["start", "end"]);
  });

  it.each(["unusual", "highest", "lowest", null])("accepts the order %j", (order) => {
    expect(validationErrors(ExecuteQuery, { query: "up", order })).toEqual([]);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, order })).toEqual([]);
  });

  it.each(["", "Highest", "biggest", "asc", 1])("rejects the order %j, naming the accepted ones", (order) => {
    const expected = ["order: order must be unusual, highest or lowest"];
    expect(validationErrors(ExecuteQuery, { query: "up", order })).toEqual(expected);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, order })).toEqual(expected);
  });

  it.each(["15s", "1m", "1h30m", "1d", "500ms", "2w", "1y", "60", "0.5"])("accepts the step %s", (step) => {
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, step })).toEqual([]);
  });

  it.each(["", "0", "0s", "-15", "15 s", "1.5m", "abc", "1m1h", "15S"])("rejects the step %j", (step) => {
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, step })).toEqual([
      "step: step must be a positive Prometheus duration (e.g. 15s, 1m, 1h30m, 1d, 500ms) or a number of seconds",
    ]);
  });

  it("bounds step like the time arguments: at most 64 characters, never a number that is not finite", () => {
    // The report: 200,000 digits parsed to Infinity and were sent upstream (and logged) whole.
    const tooLong = [
      "step: step must be at most 64 characters: a positive Prometheus duration (e.g. 15s, 1m, 1h30m, 1d, 500ms) or a number of seconds (e.g. 60)",
    ];
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, step: "1".repeat(200_000) })).toEqual(tooLong);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, step: `${"1".repeat(400)}s` })).toEqual(tooLong);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, step: "1".repeat(65) })).toEqual(tooLong);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, step: "1".repeat(64) })).toEqual([]);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, step: `0.${"0".repeat(61)}1` })).toEqual([]);
    for (const step of ["1e400", "1e3", "Infinity", "NaN", `0.${"0".repeat(62)}`]) {
      expect(validationErrors(ExecuteRangeQuery, { ...RANGE, step }), step).toEqual([
        "step: step must be a positive Prometheus duration (e.g. 15s, 1m, 1h30m, 1d, 500ms) or a number of seconds",
      ]);
    }
    expect(stepSeconds("1".repeat(400))).toBeNaN();
    expect(stepSeconds("1".repeat(200_000))).toBeNaN();
    expect(stepSeconds("90")).toBe(90);
    expect(stepSeconds("1m30s")).toBe(90);
  });

  it.each(["ws_123", "123", "ws-", "ws-a/b", "WS-abc", "ws-a b"])(
    "rejects the workspace id %j",
    (workspace_id) => {
      const errors = validationErrors(ListMetrics, { workspace_id });
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^workspace_id: workspace_id must be an AMP workspace id/);
    },
  );

  it.each(["us_east_1", "US-EAST-1", "useast1", "us-east", "us-gov-west-1x", ""])(
    "rejects the region %j",
    (region) => {
      expect(validationErrors(GetAvailableWorkspaces, { region })).toEqual([
        "region: region must be an AWS region such as us-east-1 or eu-west-2",
      ]);
    },
  );

  it.each(["us-east-1", "eu-central-2", "us-gov-west-1", "ap-southeast-4"])(
    "accepts the region %s",
    (region) => {
      expect(validationErrors(GetServerInfo, { region })).toEqual([]);
    },
  );

  it("rejects an empty, blank or oversized query, and a missing one", () => {
    expect(validationErrors(ExecuteQuery, { query: "" })).toEqual(["query: query must not be empty"]);
    expect(validationErrors(ExecuteQuery, { query: " \n\t" })).toEqual(["query: query must not be empty"]);
    expect(validationErrors(ExecuteQuery, { query: "x".repeat(20_001) })).toEqual([
      "query: query must be at most 20000 characters",
    ]);
    expect(validationErrors(ExecuteQuery, {})).toHaveLength(1);
    expect(validationErrors(ExecuteRangeQuery, { query: "up" })).toHaveLength(3);
  });

  it("has no substring blocklist: URLs, semicolons and keywords in label values are fine", () => {
    for (const query of [
      'probe_success{instance="https://x"}',
      'up{job="a;b"}',
      'up{cmd="drop table; rm -rf /"}',
    ]) {
      expect(validationErrors(ExecuteQuery, { query })).toEqual([]);
    }
  });

  it("accepts an explicit null for every optional parameter", () => {
    const nulls = { workspace_id: null, region: null, profile: null };
    expect(validationErrors(ExecuteQuery, { query: "up", time: null, ...nulls })).toEqual([]);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, ...nulls })).toEqual([]);
    expect(validationErrors(ListMetrics, nulls)).toEqual([]);
    expect(validationErrors(GetServerInfo, nulls)).toEqual([]);
    expect(validationErrors(GetAvailableWorkspaces, { region: null, profile: null })).toEqual([]);
  });

  it("rejects non-string values", () => {
    expect(validationErrors(ExecuteQuery, { query: "up", time: 1700000000 })).toHaveLength(1);
  });
});

describe("tool behaviour without any server", () => {
  const lambda = () => makeToolCall({ profileSupported: false, prometheusUrl: "http://127.0.0.1:9/" });

  it.each([
    ["ExecuteQuery", ExecuteQuery, { query: "up" }],
    ["ExecuteRangeQuery", ExecuteRangeQuery, RANGE],
    ["ListMetrics", ListMetrics, {}],
    ["GetServerInfo", GetServerInfo, {}],
    ["GetAvailableWorkspaces", GetAvailableWorkspaces, {}],
  ] as [string, Tool, Record<string, unknown>][])(
    "%s refuses a profile in Lambda",
    async (_name, tool, args) => {
      const error = await toolError(tool, { ...args, profile: "dev" }, lambda());
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toBe(
        "The profile parameter is not supported in AWS Lambda: the function's execution role provides the AWS credentials. Call the tool again without profile.",
      );
    },
  );

  it("accepts a null profile in Lambda, and reports a profile where profiles are supported", async () => {
    expect(await callTool(GetServerInfo, { profile: null }, lambda())).toMatchObject({
      aws_profile: "default",
    });
    expect(await callTool(GetServerInfo, { profile: "dev" }, makeToolCall())).toEqual({
      prometheus_url: null,
      aws_region: "us-east-1",
      aws_profile: "dev",
      service_name: "aps",
      auth_mode: "sigv4",
      backend_kind: "amp",
      server_time: expect.any(String),
      result_budget_bytes: 1_000_000,
      result_budget_tokens: 20_000,
    });
  });

  it.each([
    ["ExecuteQuery", ExecuteQuery, { query: "up" }],
    ["ExecuteRangeQuery", ExecuteRangeQuery, RANGE],
    ["ListMetrics", ListMetrics, {}],
  ] as [string, Tool, Record<string, unknown>][])(
    "%s needs a workspace when PROMETHEUS_URL is unset",
    async (_name, tool, args) => {
      await expect(callTool(tool, args, makeToolCall())).rejects.toThrow(
        new ToolError(
          "Workspace ID is required when no Prometheus URL is configured. Please use GetAvailableWorkspaces to list available workspaces and choose one.",
          "invalid_arguments",
        ),
      );
    },
  );

  it("normalises configured URLs for GetServerInfo", async () => {
    for (const [configured, expected] of [
      [
        "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-abc/",
        "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-abc",
      ],
      ["http://localhost:9090", "http://localhost:9090"],
      ["http://localhost:9090/api/v1/", "http://localhost:9090"],
      ["http://localhost:9090/prom//", "http://localhost:9090/prom"],
    ]) {
      expect(await callTool(GetServerInfo, {}, makeToolCall({ prometheusUrl: configured }))).toMatchObject({
        prometheus_url: expected,
      });
    }
  });
});

describe("helpers", () => {
  it("encodes per RFC 3986, including !'()* and space as %20", () => {
    expect(encodeRfc3986(`a b+c/d?e=f&g!'()*~._-"`)).toBe("a%20b%2Bc%2Fd%3Fe%3Df%26g%21%27%28%29%2A~._-%22");
  });

  it("normalises API URLs", () => {
    expect(normaliseApiUrl("https://h/workspaces/ws-1/")).toBe("https://h/workspaces/ws-1/api/v1");
    expect(normaliseApiUrl("https://h/workspaces/ws-1/api/v1/")).toBe("https://h/workspaces/ws-1/api/v1");
  });

  it("extracts the workspace id from a configured URL", () => {
    expect(
      workspaceIdFromUrl("https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-a1_B-2/api/v1"),
    ).toBe("ws-a1_B-2");
    expect(workspaceIdFromUrl("http://localhost:9090")).toBeUndefined();
    expect(workspaceIdFromUrl(undefined)).toBeUndefined();
  });
});

describe("text the query cannot carry", () => {
  it("a query with a lone surrogate is refused with a clear message, not an internal error", () => {
    expect(validationErrors(ExecuteQuery, { query: "up\udfff" })).toEqual([
      "query: query must be valid Unicode text (it holds a lone surrogate)",
    ]);
    expect(validationErrors(ExecuteQuery, { query: 'up{x="😀"}' })).toEqual([]);
  });
});

describe("the discovery and alerting tools' arguments", () => {
  it("match: one selector or a list; empty, too many or not text is refused naming the argument", () => {
    expect(ListLabels.inputSchema.parse({ match: "up" }).match).toEqual(["up"]);
    expect(ListLabels.inputSchema.parse({ match: ["up", 'http_requests_total{code="500"}'] }).match).toEqual([
      "up",
      'http_requests_total{code="500"}',
    ]);
    expect(ListLabels.inputSchema.parse({ match: null }).match).toBeUndefined();
    expect(validationErrors(ListLabels, { match: " " })).toEqual(["match: match must not be empty"]);
    expect(validationErrors(ListLabels, { match: [] })).toEqual([
      "match: match must name at least one selector",
    ]);
    expect(validationErrors(FindSeries, { match: Array.from({ length: 21 }, () => "up") })).toEqual([
      "match: match takes at most 20 selectors",
    ]);
    expect(validationErrors(FindSeries, {})).toHaveLength(1);
    expect(validationErrors(FindSeries, {})[0]).toMatch(/^match: /);
    expect(validationErrors(ListAlerts, { match: 5 })).toHaveLength(1);
  });

  it("label and metric are names; state, type are their enums; start and end take relative times", () => {
    expect(validationErrors(ListLabelValues, { label: "code" })).toEqual([]);
    expect(validationErrors(ListLabelValues, { label: "status code" })[0]).toMatch(
      /^label: label must be a label name/,
    );
    expect(validationErrors(ListLabelValues, {})).toHaveLength(1);
    expect(validationErrors(GetMetricMetadata, { metric: "http_requests_total" })).toEqual([]);
    expect(validationErrors(GetMetricMetadata, { metric: "1abc" })[0]).toMatch(
      /^metric: metric must be a metric name/,
    );
    expect(validationErrors(ListAlerts, { state: "resolved" })).toEqual([
      "state: state must be firing or pending",
    ]);
    expect(validationErrors(ListSilences, { state: "firing" })).toEqual([
      "state: state must be active, pending or expired",
    ]);
    expect(validationErrors(ListRules, { type: "alerting" })).toEqual(["type: type must be alert or record"]);
    expect(validationErrors(ListRules, { health: "bad" })).toEqual([
      "health: health must be ok, err or unknown",
    ]);
    expect(validationErrors(ListRules, { name: "" })[0]).toMatch(/^name: /);
    expect(validationErrors(ListLabels, { start: "now-1h", end: "now" })).toEqual([]);
    expect(validationErrors(ListLabels, { start: "yesterday" })[0]).toMatch(
      /^start: start must be an RFC 3339/,
    );
  });
});
