import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { captureOutput } from "../support/capture.js";
import { type Handler, makeHandler, postMcp } from "../support/handler.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";
import { queryPoints } from "../support/queryPoints.js";
import { CORE_TOOLS, PLAIN_TOOL_INTERFACE, TOOL_INTERFACE } from "../support/toolInterface.js";

// The first hour with a plain Prometheus (README, "Run it, test it"): the tools as they are listed and
// called when PROMETHEUS_URL is not AMP's and PROMETHEUS_AUTH=none, against a real Prometheus.

const AMP_URL = "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-12345678-abcd/";

interface ListedTool {
  name: string;
  description: string;
  inputSchema: { properties: Record<string, Record<string, unknown>>; required?: string[] };
  outputSchema: Record<string, unknown>;
}

async function listing(handler: Handler): Promise<{ tools: ListedTool[]; instructions: string }> {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  const { instructions } = JSON.parse((await postMcp(handler, initialize)).body).result;
  const { tools } = JSON.parse(
    (await postMcp(handler, { jsonrpc: "2.0", id: 2, method: "tools/list" })).body,
  ).result;
  return { tools, instructions };
}

async function call(handler: Handler, name: string, args: Record<string, unknown>) {
  const body = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name, arguments: args } };
  return JSON.parse((await postMcp(handler, body)).body).result as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: Record<string, unknown>;
  };
}

/** Every `type` named anywhere in a schema. */
function typesIn(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(typesIn);
  if (typeof schema !== "object" || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === "type" && typeof value === "string" ? [value] : typesIn(value),
  );
}

describe("tools/list by mode (no Prometheus needed)", () => {
  it("a plain Prometheus: no workspace_id, region, profile or GetAvailableWorkspaces; the server, not workspaces", async () => {
    const { tools, instructions } = await listing(
      makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" }),
    );
    expect(tools.map((tool) => tool.name)).toStrictEqual(Object.keys(PLAIN_TOOL_INTERFACE));
    for (const tool of tools) {
      const expected = PLAIN_TOOL_INTERFACE[tool.name];
      expect(Object.keys(tool.inputSchema.properties).sort(), tool.name).toStrictEqual(
        [...(expected?.properties ?? [])].sort(),
      );
      expect([...(tool.inputSchema.required ?? [])].sort(), tool.name).toStrictEqual(
        [...(expected?.required ?? [])].sort(),
      );
      expect(tool.description, tool.name).not.toMatch(/workspace/i);
    }
    expect(instructions).toMatch(/^Investigate the Prometheus server these tools query\./);
    expect(instructions).not.toMatch(/workspace|AMP/i);
    expect(tools.find((tool) => tool.name === "GetServerInfo")?.description).toMatch(
      /^Show which Prometheus server the other tools query/,
    );
  });

  it("AMP: every tool, with workspace_id, region and profile; the instructions start from the workspaces", async () => {
    const { tools, instructions } = await listing(makeHandler({ PROMETHEUS_URL: AMP_URL }));
    expect(tools.map((tool) => tool.name)).toStrictEqual(Object.keys(TOOL_INTERFACE));
    for (const tool of tools) {
      expect(Object.keys(tool.inputSchema.properties).sort(), tool.name).toStrictEqual(
        [...(TOOL_INTERFACE[tool.name]?.properties ?? [])].sort(),
      );
    }
    expect(instructions).toContain("GetAvailableWorkspaces gives the workspace_id");
  });

  it("times, steps and limits declare the numbers they accept, one type per branch; PYTHON_COMPAT keeps strings only", async () => {
    const { tools } = await listing(makeHandler({ PROMETHEUS_URL: AMP_URL }));
    const range = tools.find((tool) => tool.name === "ExecuteRangeQuery")?.inputSchema.properties ?? {};
    for (const name of ["start", "end", "step", "limit"]) {
      expect(typesIn(range[name]), name).toContain(name === "limit" ? "integer" : "number");
      expect(typesIn(range[name]), name).toContain("string");
    }
    expect(typesIn(range.query)).toStrictEqual(["string"]);
    const compat = await listing(makeHandler({ PYTHON_COMPAT: "true", PROMETHEUS_URL: AMP_URL }));
    expect(compat.tools.map((tool) => tool.name)).toStrictEqual(CORE_TOOLS);
    for (const tool of compat.tools) {
      expect(typesIn(tool.inputSchema.properties), tool.name).not.toContain("number");
      expect(typesIn(tool.inputSchema.properties), tool.name).not.toContain("integer");
      expect(Object.keys(tool.inputSchema.properties).sort(), tool.name).toStrictEqual(
        [...(TOOL_INTERFACE[tool.name]?.properties ?? [])].sort(),
      );
    }
  });

  it("output schemas: only the results' shape, no schema that accepts anything unsaid, no type arrays", async () => {
    const { tools } = await listing(makeHandler({ PROMETHEUS_URL: AMP_URL }));
    for (const tool of tools) {
      const text = JSON.stringify(tool.outputSchema);
      expect(keywordsIn(tool.outputSchema), tool.name).not.toContain("description");
      expect(text, tool.name).not.toMatch(/:\{\}|"type":\[/);
    }
  });
});

/** Every keyword of a JSON Schema, at any depth: the keys of `properties` maps are names, not keywords. */
function keywordsIn(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(keywordsIn);
  if (typeof schema !== "object" || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === "properties" ? Object.values(value as object).flatMap(keywordsIn) : [key, ...keywordsIn(value)],
  );
}

describe.skipIf(!prometheusAvailable())("a plain Prometheus, called", () => {
  let prometheus: RunningPrometheus;
  let handler: Handler;
  const at = String(DATASET.start + 900);

  beforeAll(async () => {
    prometheus = await startPrometheus();
    handler = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
  });

  afterAll(async () => {
    await prometheus?.close();
  });

  it("over HTTP a call with a progressToken gets the same one JSON body (a buffered response has nowhere to put progress)", async () => {
    const range = {
      query: '{__name__=~"test_.+|probe_success"}',
      start: String(DATASET.start),
      end: String(DATASET.end),
      step: "60",
    };
    const body = (meta?: object) => ({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "ExecuteRangeQuery", arguments: range, ...(meta === undefined ? {} : { _meta: meta }) },
    });
    const plain = await postMcp(handler, body());
    const watched = await postMcp(handler, body({ progressToken: 7 }));
    expect(plain.statusCode).toBe(200);
    expect(JSON.parse(plain.body).result.isError).toBeFalsy();
    expect(watched.statusCode).toBe(200);
    expect(watched.headers["Content-Type"]).toBe("application/json");
    expect(watched.body).toBe(plain.body);
  });

  it("a call still passing region, profile or workspace_id (a shared client configuration) is served, the same", async () => {
    const query = { query: "count(test_temperature_celsius)", time: at };
    const plain = await call(handler, "ExecuteQuery", query);
    expect(plain.isError).toBeUndefined();
    expect(plain.structuredContent?.resultType).toBe("vector");
    for (const extra of [
      { region: "eu-west-1" },
      { profile: "prod" },
      { workspace_id: "ws-elsewhere" },
      { region: "not a region", profile: "" },
    ]) {
      const result = await call(handler, "ExecuteQuery", { ...query, ...extra });
      expect(result.isError, JSON.stringify(extra)).toBeUndefined();
      expect(result.structuredContent, JSON.stringify(extra)).toStrictEqual(plain.structuredContent);
    }
  });

  it("times, steps and limits sent as JSON numbers are read as their decimal text", async () => {
    const result = await call(handler, "ExecuteRangeQuery", {
      query: "test_temperature_celsius",
      start: DATASET.start,
      end: DATASET.start + 600,
      step: 60,
      limit: 1,
    });
    expect(result.isError).toBeUndefined();
    const series = queryPoints(result.structuredContent);
    expect(series).toHaveLength(1);
    expect(series[0]?.points).toHaveLength(11);
  });

  it.each([
    [
      "a missing end",
      { query: "up", start: at, step: "60" },
      "end is required: RFC 3339 (e.g. 2023-11-14T22:13:20Z), Unix seconds, now, or now-<duration> (e.g. now-5m)",
    ],
    ["a missing query", { start: at, end: at, step: "60" }, "query is required: a PromQL expression"],
    ["a step of the wrong type", { query: "up", start: at, end: at, step: true }, "step must be a positive"],
    [
      "a limit of the wrong type",
      { query: "up", start: at, end: at, step: "60", limit: [1] },
      "limit must be",
    ],
  ])("%s: one line naming the argument and the forms it takes", async (_case, args, message) => {
    const result = await call(handler, "ExecuteRangeQuery", args);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain(
      `Error executing tool ExecuteRangeQuery: Invalid arguments: ${message}`,
    );
    expect(result.content[0]?.text).not.toMatch(/expected string|received undefined|Invalid input/);
  });
});

describe("SigV4 for a URL that is not AMP's", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    vi.restoreAllMocks();
  });

  it("no AWS credentials: the tool error names PROMETHEUS_AUTH=none, and the log's outcome is no_credentials", async () => {
    for (const name of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"]) {
      delete process.env[name];
    }
    process.env.AWS_SHARED_CREDENTIALS_FILE = "/nonexistent/credentials";
    process.env.AWS_CONFIG_FILE = "/nonexistent/config";
    const sigv4 = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", LOG_LEVEL: "INFO" });
    const output = captureOutput();
    const result = await call(sigv4, "ExecuteQuery", { query: "up" });
    vi.restoreAllMocks();
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/AWS credentials are missing/);
    expect(result.content[0]?.text).toContain(
      "PROMETHEUS_URL=http://127.0.0.1:1 is not an AMP workspace URL, yet PROMETHEUS_AUTH is sigv4",
    );
    expect(result.content[0]?.text).toContain("set PROMETHEUS_AUTH=none");
    const request = output.lines().find((line) => line.message === "request");
    expect(request?.tools).toMatchObject([{ tool: "ExecuteQuery", outcome: "no_credentials" }]);
  });
});
