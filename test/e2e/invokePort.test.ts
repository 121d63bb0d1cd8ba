import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import { createSignedFetcher } from "aws-sigv4-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningOffline, startOffline } from "../support/offline.js";
import { TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY } from "../support/sigv4Verify.js";

// serverless offline's second port, the Lambda invoke API (lambdaPort), hands its payload to the function
// as a direct invocation, where no Host or Origin rule can apply. scripts/offline-invoke-guard.cjs puts it
// behind a guard: loopback callers without a browser's headers (the AWS SDK's Invoke, the CLI) only. These
// tests drive the real `serverless offline` (as `npm start` runs it) with the requests of the security
// finding: a web page's POST (Origin, text/plain: no preflight), DNS rebinding (a foreign Host), a
// preflight; and the SDK's own request, which must still be answered.

const FUNCTION = "prometheus-mcp-lambda-dev-mcp";
const INVOKE_PATH = `/2015-03-31/functions/${FUNCTION}/invocations`;
const INVOKE_ASYNC_PATH = `/2014-11-13/functions/${FUNCTION}/invoke-async/`;
const ATTACKER = "https://attacker.example";
const REBIND_HOST = "rebind.attacker.example";
const REGION = "us-east-1";
const PROMETHEUS_URL = "http://127.0.0.1:1";
const TOOLS_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: "info",
  method: "tools/call",
  params: { name: "GetServerInfo", arguments: {} },
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP/1.1 request over loopback, headers exactly as given (Host included: fetch cannot set it). */
function send(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...options.headers };
    if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "POST",
        path: options.path,
        headers,
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.once("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.once("error", reject);
      },
    );
    req.once("error", reject);
    req.end(options.body);
  });
}

/** A refusal: 403, no tool data, no CORS grant of any kind. */
function expectRefused(answer: Answer) {
  expect(answer.status, answer.body).toBe(403);
  expect(answer.body).not.toContain("prometheus_url");
  expect(answer.body).not.toContain("jsonrpc");
  expect(JSON.parse(answer.body)).toMatchObject({ message: expect.stringMatching(/^Forbidden: /) });
  expect(answer.headers["x-amzn-errortype"]).toBe("AccessDeniedException");
  for (const name of Object.keys(answer.headers)) expect(name).not.toMatch(/^access-control-allow-/);
}

/** The GetServerInfo result of the tools/call, as a JSON-RPC reply. */
function expectToolResult(body: string) {
  expect(JSON.parse(body)).toMatchObject({
    jsonrpc: "2.0",
    id: "info",
    result: { structuredContent: { prometheus_url: PROMETHEUS_URL } },
  });
}

/** The request the AWS SDK's Lambda client sends for `Invoke` (node:http, SigV4 for service lambda). */
async function sdkInvoke(port: number, host = `127.0.0.1:${port}`): Promise<Answer> {
  const signer = new SignatureV4({
    service: "lambda",
    region: REGION,
    credentials: { accessKeyId: TEST_ACCESS_KEY_ID, secretAccessKey: TEST_SECRET_ACCESS_KEY },
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: "POST",
    protocol: "http:",
    hostname: "127.0.0.1",
    port,
    path: INVOKE_PATH,
    headers: {
      host,
      "content-type": "application/octet-stream",
      "x-amz-invocation-type": "RequestResponse",
      "x-amz-user-agent": "aws-sdk-js/3 ua/2.1 api/lambda#3",
      "user-agent": "aws-sdk-js/3 ua/2.1 os/linux lang/js md/nodejs#20 api/lambda#3",
      "amz-sdk-invocation-id": "00000000-0000-4000-8000-000000000000",
      "amz-sdk-request": "attempt=1; max=3",
    },
    body: TOOLS_CALL,
  });
  return send(port, { path: INVOKE_PATH, headers: signed.headers, body: TOOLS_CALL });
}

describe("serverless offline's Lambda invoke port (npm start)", () => {
  let offline: RunningOffline | undefined;
  let lambdaPort = 0;

  beforeAll(async () => {
    offline = await startOffline({
      PROMETHEUS_URL,
      PROMETHEUS_AUTH: "none",
      // INFO: each invocation the function serves is logged ("direct invocation"): see the last test.
      LOG_LEVEL: "INFO",
      AWS_EC2_METADATA_DISABLED: "true",
      AWS_ACCESS_KEY_ID: TEST_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: TEST_SECRET_ACCESS_KEY,
      AWS_SESSION_TOKEN: "",
      AWS_PROFILE: "",
    });
    lambdaPort = offline.ports.lambdaPort;
  }, 120_000);

  afterAll(async () => {
    await offline?.close();
  });

  describe("refuses a web page", () => {
    it.each([
      ["invocations", INVOKE_PATH],
      ["invoke-async", INVOKE_ASYNC_PATH],
    ])(
      "POST %s with Origin https://attacker.example and Content-Type text/plain (no preflight)",
      async (_, path) => {
        const answer = await send(lambdaPort, {
          path,
          headers: { origin: ATTACKER, "content-type": "text/plain;charset=UTF-8" },
          body: TOOLS_CALL,
        });
        expectRefused(answer);
        expect(answer.body).toContain("Origin");
      },
    );

    it.each([
      ["invocations", INVOKE_PATH],
      ["invoke-async", INVOKE_ASYNC_PATH],
    ])(
      "POST %s with Host rebind.attacker.example (DNS rebinding), with and without Origin",
      async (_, path) => {
        const variants: Record<string, string>[] = [
          { host: REBIND_HOST, origin: `http://${REBIND_HOST}`, "content-type": "text/plain" },
          { host: `${REBIND_HOST}:${lambdaPort}`, "content-type": "text/plain" },
          { host: REBIND_HOST },
        ];
        for (const headers of variants) {
          expectRefused(await send(lambdaPort, { path, headers, body: TOOLS_CALL }));
        }
      },
    );

    it("a CORS preflight (OPTIONS) gets no access-control-allow-origin", async () => {
      for (const path of [INVOKE_PATH, INVOKE_ASYNC_PATH]) {
        const answer = await send(lambdaPort, {
          method: "OPTIONS",
          path,
          headers: {
            origin: ATTACKER,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,x-amz-invocation-type",
          },
        });
        expectRefused(answer);
      }
    });

    it("a browser's fetch metadata without Origin (a form or no-cors request) is refused", async () => {
      const variants: Record<string, string>[] = [
        { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "empty" },
        { "sec-fetch-site": "same-site" },
        { "sec-fetch-mode": "navigate" },
        { "sec-fetch-dest": "document" },
      ];
      for (const headers of variants) {
        expectRefused(
          await send(lambdaPort, {
            path: INVOKE_PATH,
            headers: { "content-type": "text/plain", ...headers },
            body: TOOLS_CALL,
          }),
        );
      }
    });

    it("Origin: null (a sandboxed frame, a file:// page) is refused like any other", async () => {
      expectRefused(
        await send(lambdaPort, {
          path: INVOKE_PATH,
          headers: { origin: "null", "content-type": "text/plain" },
          body: TOOLS_CALL,
        }),
      );
    });
  });

  describe("serves the AWS SDK and CLI on this machine", () => {
    it("the SDK's Invoke (SigV4 for lambda, no Origin, Host 127.0.0.1:<port>) gets the tools/call result", async () => {
      const answer = await sdkInvoke(lambdaPort);
      expect(answer.status, answer.body).toBe(200);
      expectToolResult(answer.body);
      expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
    });

    it.each(["localhost", "[::1]"])("Host %s:<port> is a loopback name too", async (name) => {
      const answer = await sdkInvoke(lambdaPort, `${name}:${lambdaPort}`);
      expect(answer.status, answer.body).toBe(200);
      expectToolResult(answer.body);
    });

    it("Node's fetch (aws-sigv4-fetch, which sends sec-fetch-mode: cors) gets the result", async () => {
      const signedFetch = createSignedFetcher({
        service: "lambda",
        region: REGION,
        credentials: { accessKeyId: TEST_ACCESS_KEY_ID, secretAccessKey: TEST_SECRET_ACCESS_KEY },
      });
      const response = await signedFetch(`http://127.0.0.1:${lambdaPort}${INVOKE_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: TOOLS_CALL,
      });
      const body = await response.text();
      expect(response.status, body).toBe(200);
      expectToolResult(body);
    });

    it("InvokeAsync (no Origin, loopback Host) is accepted (serverless offline answers {StatusCode: 202})", async () => {
      const answer = await send(lambdaPort, {
        path: INVOKE_ASYNC_PATH,
        headers: { "content-type": "application/octet-stream" },
        body: TOOLS_CALL,
      });
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body)).toStrictEqual({ StatusCode: 202 });
    });
  });

  describe("/mcp on the HTTP port behaves as before", () => {
    it("a foreign Origin gets 403; a plain tools/call gets the result", async () => {
      if (!offline) throw new Error("serverless offline did not start");
      const port = offline.ports.httpPort;
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const foreign = await send(port, {
        path: "/mcp",
        headers: { ...headers, origin: ATTACKER },
        body: TOOLS_CALL,
      });
      expect(foreign.status, foreign.body).toBe(403);
      expect(foreign.body).not.toContain("prometheus_url");
      const plain = await send(port, { path: "/mcp", headers, body: TOOLS_CALL });
      expect(plain.status, plain.body).toBe(200);
      expectToolResult(plain.body);
    });
  });

  it("no refused request reached the function", async () => {
    if (!offline) throw new Error("serverless offline did not start");
    const before = offline.output().length;
    for (const path of [INVOKE_PATH, INVOKE_ASYNC_PATH]) {
      expectRefused(
        await send(lambdaPort, {
          path,
          headers: { origin: ATTACKER, "content-type": "text/plain" },
          body: TOOLS_CALL,
        }),
      );
      expectRefused(await send(lambdaPort, { path, headers: { host: REBIND_HOST }, body: TOOLS_CALL }));
    }
    // An InvokeAsync would have run by now; the refused ones never ran.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = offline.output().slice(before);
    expect(after).not.toContain('"direct invocation"');
    expect(after).toContain("Lambda invoke port: refused");
    // And the guard does log the invocations it lets through (the check above is not vacuous).
    expect(offline.output()).toContain('"direct invocation"');
  });
});
