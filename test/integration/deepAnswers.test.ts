import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ExecuteQuery, ListAlerts, ListSilences } from "../../tools/index.js";
import { ToolError } from "../../tools/types.js";
import { type CapturedOutput, captureOutput } from "../support/capture.js";
import { type FaultServer, startFaultServer } from "../support/faultServer.js";
import { makeHandler, postMcp } from "../support/handler.js";
import { callTool, makeToolCall, toolError } from "../support/toolCall.js";

/**
 * Finding 4: a Prometheus answer nested about 5,000 deep made JSON.stringify throw RangeError: the
 * call was logged as a fault with its stack and answered "internal error". Now the answer scanner stops
 * at 64 levels and the tool answers an error naming the upstream and its URL.
 */

const deepArray = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}"x"${"}".repeat(levels)}`;

/** The reproduction: a vector whose one sample's value is nested 5,000 deep. */
const DEEP_VECTOR = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,${deepArray(5_000)}]}]}}`;
/** The same depth beside the streamed array (in the skeleton). */
const DEEP_SKELETON = `{"status":"success","data":{"resultType":"vector","result":[],"stats":${deepObject(5_000)}}}`;
/** An alert whose annotation is nested 5,000 deep. */
const DEEP_ALERTS = `{"status":"success","data":{"alerts":[{"labels":{"alertname":"HighErrorRate"},"annotations":{"summary":${deepObject(5_000)}},"state":"firing","activeAt":"2024-01-01T00:00:00Z","value":"1"}]}}`;
/** Alertmanager's bare array of silences, one with a comment nested 5,000 deep. */
const DEEP_SILENCES = `[{"id":"s1","matchers":[{"name":"alertname","value":"X","isRegex":false}],"startsAt":"2024-01-01T00:00:00Z","endsAt":"2030-01-01T00:00:00Z","comment":${deepArray(5_000)},"createdBy":"me","status":{"state":"active"}}]`;

const LIMIT_MESSAGE =
  /cannot be read: the answer nests arrays and objects more than maxDepth \(64 levels\) deep, at byte \d+\.$/;

function expectNoStack(message: string): void {
  expect(message).not.toMatch(/\n\s+at /);
  expect(message).not.toContain("RangeError");
  expect(message).not.toContain("Maximum call stack");
}

describe("an answer nested thousands deep is a tool error naming the upstream (finding 4)", () => {
  const servers: FaultServer[] = [];
  const serve = async (body: string) => {
    const server = await startFaultServer([{ status: 200, body }]);
    servers.push(server);
    return server;
  };

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it.each([
    ["a sample value 5,000 deep (the finding's reproduction)", DEEP_VECTOR],
    ["5,000 levels beside the result array", DEEP_SKELETON],
  ])("ExecuteQuery: %s", async (_case, answer) => {
    const server = await serve(answer);
    const error = await toolError(
      ExecuteQuery,
      { query: "up" },
      makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" }),
    );
    expect(error.message).toMatch(
      new RegExp(`^Prometheus's answer at ${server.url}/api/v1/query ${LIMIT_MESSAGE.source}`),
    );
    expectNoStack(error.message);
    // Not retried: the same answer would come again.
    expect(server.requests).toHaveLength(1);
  });

  it("ListAlerts: an annotation 5,000 deep", async () => {
    const server = await serve(DEEP_ALERTS);
    const error = await toolError(
      ListAlerts,
      {},
      makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" }),
    );
    expect(error.message).toMatch(
      new RegExp(`^Prometheus's answer at ${server.url}/api/v1/alerts ${LIMIT_MESSAGE.source}`),
    );
    expectNoStack(error.message);
  });

  it("ListSilences: a silence's comment 5,000 deep, from Alertmanager", async () => {
    const server = await serve(DEEP_SILENCES);
    const error = await toolError(
      ListSilences,
      {},
      makeToolCall({
        prometheusUrl: "http://127.0.0.1:9/",
        prometheusAuth: "none",
        alertmanagerUrl: server.url,
      }),
    );
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toMatch(
      new RegExp(`^Alertmanager's answer at ${server.url}/api/v2/silences ${LIMIT_MESSAGE.source}`),
    );
  });

  it("an answer nesting 60 deep, under the limit, is read and rendered", async () => {
    // Five levels down to the sample's value, 55 in it.
    const body = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"x"},"value":[1,${deepArray(55)}]}]}}`;
    const server = await serve(body);
    const result = (await callTool(
      ExecuteQuery,
      { query: "up" },
      makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" }),
    )) as { result: unknown[] };
    expect(result.result).toHaveLength(1);
  });
});

describe("through the Lambda handler: an isError result, not a fault", () => {
  let output: CapturedOutput;
  let server: FaultServer;
  let alerts: FaultServer;

  beforeAll(async () => {
    server = await startFaultServer([{ status: 200, body: DEEP_VECTOR }]);
    alerts = await startFaultServer([{ status: 200, body: DEEP_ALERTS }]);
  });

  afterAll(async () => {
    await Promise.all([server.close(), alerts.close()]);
  });

  beforeEach(() => {
    output = captureOutput();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  const logLevels = () =>
    output
      .text()
      .split("\n")
      .filter((line) => line.trim().startsWith("{"))
      .map((line) => (JSON.parse(line) as { level?: string }).level);

  it.each([
    ["ExecuteQuery", { query: "up" }, () => server, "/api/v1/query"],
    ["ListAlerts", {}, () => alerts, "/api/v1/alerts"],
  ] as const)("%s", async (name, args, upstream, path) => {
    const url = upstream().url;
    const handler = makeHandler({ LOG_LEVEL: "INFO", PROMETHEUS_URL: url, PROMETHEUS_AUTH: "none" });
    const reply = await postMcp(handler, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name, arguments: args },
    });
    expect(reply.statusCode).toBe(200);
    const body = JSON.parse(reply.body) as {
      id: number;
      result: { isError?: boolean; content: { type: string; text: string }[] };
    };
    expect(body.id).toBe(7);
    expect(body.result.isError).toBe(true);
    const text = body.result.content[0]?.text ?? "";
    expect(text).toContain(`Prometheus's answer at ${url}${path} cannot be read`);
    expect(text).toContain("maxDepth (64 levels)");
    expect(text).not.toContain("internal error");
    expectNoStack(text);
    // Logged as a tool error, never as a fault (an ERROR line with a stack).
    expect(logLevels()).not.toContain("ERROR");
    expect(output.text()).not.toContain("RangeError");
  });
});
