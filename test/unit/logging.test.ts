import { afterEach, describe, expect, it, vi } from "vitest";
import { callHttp, JSON_HEADERS, makeHandler } from "../helpers/handler.js";

describe("request logging", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("one line per request, correlated by the API Gateway request id, never the Authorization header", async () => {
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, "write").mockImplementation(capture as typeof process.stdout.write);
    vi.spyOn(process.stderr, "write").mockImplementation(capture as typeof process.stderr.write);
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
    const entries = lines
      .join("")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
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
    const all = lines.join("");
    expect(all).not.toContain("f00dfeed");
    expect(all).not.toContain("tok-secret");
    expect(all.toLowerCase()).not.toContain("authorization");
  });
});
