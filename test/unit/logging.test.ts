import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool } from "../../tools/types.js";
import { captureOutput } from "../support/capture.js";
import { lambdaContext } from "../support/events.js";
import { callHttp, JSON_HEADERS, makeHandler } from "../support/handler.js";

describe("request logging", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("one line per request, correlated by the API Gateway request id, never the Authorization header", async () => {
    const output = captureOutput();
    const handler = makeHandler({ LOG_LEVEL: "DEBUG" });
    const signature =
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/execute-api/aws4_request, Signature=f00dfeed";
    await callHttp(handler, {
      method: "POST",
      path: "/mcp",
      headers: { ...JSON_HEADERS, authorization: signature, "x-amz-security-token": "tok-secret" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      requestId: "apigw-request-42",
    });
    const entries = output.lines();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: "INFO",
      message: "request",
      correlation_id: "apigw-request-42",
      method: "POST",
      path: "/mcp",
      status: 200,
      rpc: ["tools/list"],
    });
    const all = output.text();
    expect(all).not.toContain("f00dfeed");
    expect(all).not.toContain("tok-secret");
    expect(all.toLowerCase()).not.toContain("authorization");
  });

  it("a fault's log line names its own request: correlation id and Lambda request id, also when requests overlap", async () => {
    const output = captureOutput();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const exploding = defineTool({
      name: "Exploding",
      description: "throws an error that is not a tool error",
      annotations: {},
      inputSchema: z.object({ wait: z.boolean() }),
      outputSchema: z.object({}),
      run: async ({ wait }) => {
        if (wait) await gate;
        throw new Error("boom");
      },
    });
    const handler = makeHandler({ LOG_LEVEL: "INFO" }, { tools: [exploding] });
    const call = (requestId: string, lambdaRequestId: string, wait: boolean) =>
      callHttp(
        handler,
        {
          method: "POST",
          path: "/mcp",
          headers: JSON_HEADERS,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "Exploding", arguments: { wait } },
          }),
          requestId,
        },
        "v2",
        30_000,
        { ...lambdaContext(), awsRequestId: lambdaRequestId },
      );
    // The first request faults only after the second has started and faulted.
    const first = call("apigw-first", "lambda-first", true);
    await call("apigw-second", "lambda-second", false);
    release();
    await first;
    const faults = output.lines().filter((entry) => entry.level === "ERROR");
    expect(faults.map((entry) => [entry.correlation_id, entry.function_request_id])).toStrictEqual([
      ["apigw-second", "lambda-second"],
      ["apigw-first", "lambda-first"],
    ]);
    expect(faults.every((entry) => entry.message === "Unexpected failure in tool Exploding")).toBe(true);
  });
});
