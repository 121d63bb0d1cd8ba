import { createServer } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { startRequest } from "../../src/context.js";
import { Credentials } from "../../src/prometheus/credentials.js";
import { DataPlane, MAX_CACHED_SIGNERS } from "../../src/prometheus/dataPlane.js";
import { PARTITIONS } from "../../src/prometheus/regions.js";
import { ExecuteQuery, ListMetrics } from "../../tools/index.js";
import { ToolError } from "../../tools/types.js";
import { testContext } from "../support/context.js";
import { advance, useFakeClock, waitUntil, watch } from "../support/fakeClock.js";
import { errorBody, startFaultServer, successBody } from "../support/faultServer.js";
import { closeServer, listenLoopback, refusedUrl } from "../support/net.js";
import { TEST_TOKEN } from "../support/testSecrets.js";
import { callTool, makeToolCall, toolError } from "../support/toolCall.js";
import { wholeAnswer } from "../support/wholeAnswer.js";

const VECTOR = { resultType: "vector", result: [{ metric: { job: "x" }, value: [1700000000, "1"] }] };

/** Runs ExecuteQuery against `url` as PROMETHEUS_URL; returns the result or the thrown error. */
async function query(
  url: string,
  options: { timeoutMs?: number; signal?: AbortSignal; auth?: "sigv4" | "none" } = {},
) {
  const call = makeToolCall({ prometheusUrl: url, prometheusAuth: options.auth ?? "none" }, options);
  return callTool(ExecuteQuery, { query: "up" }, call).catch((error: unknown) => error);
}

describe("data-plane faults", () => {
  it("retries 5xx and 429, then returns the success", async () => {
    const server = await startFaultServer([
      { status: 503 },
      { status: 429 },
      { status: 200, body: successBody(VECTOR) },
    ]);
    try {
      expect(await query(server.url)).toEqual(VECTOR);
      expect(server.requests).toHaveLength(3);
      expect(server.requests.every((r) => r.startsWith("/api/v1/query?query=up"))).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("re-signs each retry (SigV4 through retries)", async () => {
    const server = await startFaultServer([{ status: 502 }, { status: 200, body: successBody(VECTOR) }]);
    try {
      expect(await query(server.url, { auth: "sigv4" })).toEqual(VECTOR);
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("stops after a bounded number of attempts and reports the last failure", async () => {
    const server = await startFaultServer([{ status: 500, body: errorBody("internal", "storage exploded") }]);
    try {
      const error = (await query(server.url)) as Error;
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toBe(
        `Prometheus failed with HTTP 500 at ${server.url}/api/v1/query: internal: storage exploded. Gave up after 3 attempts.`,
      );
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it("never retries a 400 and surfaces Prometheus's errorType and error", async () => {
    const server = await startFaultServer([
      {
        status: 400,
        body: errorBody("bad_data", 'invalid parameter "query": 1:5: parse error: unclosed left parenthesis'),
      },
      { status: 200, body: successBody(VECTOR) },
    ]);
    try {
      const error = (await query(server.url)) as Error;
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toBe(
        'Prometheus rejected the query (HTTP 400) bad_data: invalid parameter "query": 1:5: parse error: unclosed left parenthesis',
      );
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("never retries a 422 execution error", async () => {
    const server = await startFaultServer([
      { status: 422, body: errorBody("execution", "query timed out in expression evaluation") },
    ]);
    try {
      expect(((await query(server.url)) as Error).message).toBe(
        "Prometheus rejected the query (HTTP 422) execution: query timed out in expression evaluation",
      );
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("reports a non-Prometheus 404 as a URL problem", async () => {
    const server = await startFaultServer([{ status: 404, body: "404 page not found" }]);
    try {
      const error = (await callTool(
        ListMetrics,
        {},
        makeToolCall({ prometheusUrl: `${server.url}/wrong/`, prometheusAuth: "none" }),
      ).catch((e) => e)) as Error;
      expect(error.message).toBe(
        `Prometheus answered HTTP 404 at ${server.url}/wrong/api/v1/label/__name__/values: 404 page not found. Check the Prometheus URL or workspace.`,
      );
      expect(server.requests).toEqual(["/wrong/api/v1/label/__name__/values"]);
    } finally {
      await server.close();
    }
  });

  it("gives up at the deadline when Prometheus never answers, and lets go of its request (the server still closes)", async () => {
    const server = await startFaultServer([{ hang: true }]);
    // On a clock moved by hand: the request has 600 ms, the tool 250 ms less (the server's margin).
    useFakeClock();
    try {
      const answer = watch(query(server.url, { timeoutMs: 600, auth: "sigv4" }));
      await waitUntil(() => server.requests.length === 1, "the query reaching Prometheus");
      await advance(349);
      expect(answer.settled).toBe(false);
      await advance(1);
      expect(answer.settled).toBe(true);
      const error = (await answer.promise) as Error;
      expect(error).toBeInstanceOf(ToolError);
      // The attempt was bounded by the tool's own deadline, not by its 30 s cap.
      expect(error.message).toMatch(
        /^Prometheus did not answer within 350 ms \(http:\/\/127\.0\.0\.1:\d+\/api\/v1\/query\)\.$/,
      );
      expect(server.requests).toHaveLength(1);
      await waitUntil(() => server.dropped.length === 1, "Prometheus seeing the query given up");
      expect(server.dropped).toEqual(server.requests);
    } finally {
      vi.useRealTimers();
      await server.close();
    }
  });

  it("bounds each attempt by the per-attempt cap and retries a timed-out attempt while time is left", async () => {
    const server = await startFaultServer([{ hang: true }, { status: 200, body: successBody(VECTOR) }]);
    try {
      const data = await new DataPlane(new Credentials(), { mode: "none", headers: {} }).get(
        server.url,
        "/query",
        { query: "up" },
        { region: "us-east-1", profile: undefined, context: testContext(5_000), attemptTimeoutMs: 300 },
        wholeAnswer,
      );
      expect(data).toEqual(VECTOR);
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("stops when the caller aborts, and lets go of its request", async () => {
    const server = await startFaultServer([{ hang: true }]);
    try {
      const controller = new AbortController();
      // Ten minutes to the deadline: only the abort can end the call within the test's bound.
      const answer = query(server.url, { timeoutMs: 600_000, signal: controller.signal });
      await waitUntil(() => server.requests.length === 1, "the query reaching Prometheus");
      controller.abort();
      const error = (await answer) as Error;
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toMatch(/was cancelled before it answered/);
      // Not tried again, and the request given up.
      expect(server.requests).toHaveLength(1);
      await waitUntil(() => server.dropped.length === 1, "Prometheus seeing the query given up");
    } finally {
      await server.close();
    }
  });

  it("names the host and the cause when the connection is refused", async () => {
    const url = await refusedUrl();
    const error = (await query(url)) as Error;
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toBe(
      `Could not reach Prometheus at ${url}/api/v1/query: connection refused (ECONNREFUSED). Gave up after 3 attempts.`,
    );
  });

  // Issue 36, finding 4: fetch's TypeError quotes the whole header value it refuses; that text was
  // retried as "unreachable" and became the tool error and the DEBUG line.
  it("a request fetch cannot build (a header value it refuses) is said by its class, never fetch's message: one attempt, nothing sent", async () => {
    const server = await startFaultServer([{ status: 200, body: successBody(VECTOR) }]);
    const debug: Record<string, unknown>[] = [];
    try {
      const context = startRequest({
        timeoutMs: 5_000,
        debug: (message, fields) => debug.push({ message, ...fields }),
      });
      const plane = new DataPlane(new Credentials(), {
        mode: "none",
        headers: { "x-gateway-key": `${TEST_TOKEN}\u0000` },
      });
      const error = await plane
        .get(
          `${server.url}/api/v1`,
          "/query",
          { query: "up" },
          { region: "us-east-1", profile: undefined, context },
          wholeAnswer,
        )
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).kind).toBe("misconfigured");
      expect((error as ToolError).message).toBe(
        `The request to Prometheus (${server.url}/api/v1/query) could not be made: a header or its URL holds what HTTP cannot carry (TypeError); nothing was sent. Check the server's URL and the headers configured for it.`,
      );
      expect(server.requests).toHaveLength(0);
      expect(debug.map(({ message, error }) => [message, error])).toEqual([
        ["Prometheus attempt failed", "not built (TypeError)"],
      ]);
      expect(JSON.stringify(debug)).not.toContain(TEST_TOKEN);
    } finally {
      await server.close();
    }
  });

  it("rejects a 200 that is not a Prometheus success envelope", async () => {
    const server = await startFaultServer([{ status: 200, body: "<html>login</html>" }]);
    try {
      expect(((await query(server.url)) as Error).message).toMatch(
        /^Prometheus answered HTTP 200 at .* without a success status: <html>login<\/html>$/,
      );
    } finally {
      await server.close();
    }
  });

  it("reports AMP's 403 as a refused signature or permission, with AMP's message", async () => {
    const server = await startFaultServer([
      {
        status: 403,
        body: {
          message: "User: arn:aws:sts::1:assumed-role/x is not authorized to perform: aps:QueryMetrics",
        },
      },
    ]);
    try {
      // Laid out as an AMP workspace: SigV4 is what it takes.
      const error = (await query(`${server.url}/workspaces/ws-1/`, { auth: "sigv4" })) as Error;
      expect(error.message).toBe(
        "Amazon Managed Prometheus refused the request (HTTP 403): the SigV4 signature or the caller's aps permissions were rejected: User: arn:aws:sts::1:assumed-role/x is not authorized to perform: aps:QueryMetrics",
      );
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("a 403 from a URL that is not AMP's: signed, the advice to sign nothing; unsigned, the server's refusal", async () => {
    const server = await startFaultServer([
      { status: 403, body: { message: "forbidden by the gateway" } },
      { status: 403, body: { message: "forbidden by the gateway" } },
    ]);
    try {
      const signed = (await query(server.url, { auth: "sigv4" })) as Error;
      expect(signed.message).toBe(
        `Prometheus refused the SigV4-signed request (HTTP 403 at ${server.url}/api/v1/query): forbidden by the gateway. PROMETHEUS_URL=${server.url} is not an AMP workspace URL, yet PROMETHEUS_AUTH is sigv4 (the default), so every call is signed for AMP with AWS credentials. For a plain Prometheus set PROMETHEUS_AUTH=none.`,
      );
      const unsigned = (await query(server.url, { auth: "none" })) as Error;
      expect(unsigned.message).toBe(
        `Prometheus refused the request (HTTP 403 at ${server.url}/api/v1/query): forbidden by the gateway. Check the user:password@ of its URL, or what stands in front of it (a proxy, an auth gateway).`,
      );
      expect(unsigned.message).not.toContain("Amazon");
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});

describe("redirects are never followed", () => {
  for (const [status, auth] of [
    [302, "sigv4"],
    [301, "none"],
    [307, "sigv4"],
    [308, "none"],
  ] as const) {
    it(`a ${status} (${auth}) is a tool error; the host it names receives nothing`, async () => {
      const elsewhere = await startFaultServer([{ status: 200, body: successBody(VECTOR) }]);
      const server = await startFaultServer([
        { status, headers: { location: `${elsewhere.url}/steal/api/v1/query?query=up` }, body: "moved" },
      ]);
      const saved = process.env.AWS_SESSION_TOKEN;
      // A role's credentials carry a session token: it must not travel to the other host either.
      process.env.AWS_SESSION_TOKEN = "session-token-not-real";
      try {
        const error = (await query(server.url, { auth })) as Error;
        expect(error).toBeInstanceOf(ToolError);
        expect(error.message).toBe(
          `Prometheus answered with a redirect to ${elsewhere.url} (HTTP ${status} at ${server.url}/api/v1/query); not followed: requests and their credentials go to the configured Prometheus URL or workspace only. Configure the address it redirects to instead.`,
        );
        expect(server.requests).toHaveLength(1);
        expect(elsewhere.requests).toEqual([]);
      } finally {
        if (saved === undefined) delete process.env.AWS_SESSION_TOKEN;
        else process.env.AWS_SESSION_TOKEN = saved;
        await Promise.all([server.close(), elsewhere.close()]);
      }
    });
  }
});

describe("credentials in a Prometheus URL", () => {
  const withCredentials = (url: string) => url.replace("http://", "http://admin:hunter2@");

  it("are sent as basic auth, not in the URL", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(successBody(VECTOR)));
    });
    const url = await listenLoopback(server);
    try {
      expect(await query(withCredentials(url))).toEqual(VECTOR);
      expect(seen).toEqual([`Basic ${Buffer.from("admin:hunter2").toString("base64")}`]);
    } finally {
      await closeServer(server);
    }
  });

  it("never appear in an error text", async () => {
    const refused = await refusedUrl();
    const unreachable = (await query(withCredentials(refused))) as Error;
    expect(unreachable.message).toBe(
      `Could not reach Prometheus at ${refused}/api/v1/query: connection refused (ECONNREFUSED). Gave up after 3 attempts.`,
    );
    const server = await startFaultServer([{ status: 404, body: "404 page not found" }]);
    try {
      const notFound = (await query(withCredentials(server.url))) as Error;
      expect(notFound.message).toBe(
        `Prometheus answered HTTP 404 at ${server.url}/api/v1/query: 404 page not found. Check the Prometheus URL or workspace.`,
      );
      const signed = await toolError(
        ExecuteQuery,
        { query: "up" },
        makeToolCall({ prometheusUrl: withCredentials(server.url), prometheusAuth: "sigv4" }),
      );
      expect(signed.message).toMatch(
        /^A Prometheus URL with user:password@ cannot be used with SigV4 signing/,
      );
      for (const message of [unreachable.message, notFound.message, signed.message]) {
        expect(message).not.toMatch(/hunter2|admin/);
      }
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe("per-region signers", () => {
  it("are refused for a made-up region and bounded for real ones", async () => {
    const server = await startFaultServer([{ status: 200, body: successBody(VECTOR) }]);
    try {
      const first = makeToolCall({ prometheusUrl: server.url, prometheusAuth: "sigv4" });
      const warm = () => makeToolCall(first.settings, { upstream: first.upstream });
      const made = await toolError(ExecuteQuery, { query: "up", region: "us-fake-9" }, warm());
      expect(made.message).toMatch(/^Unknown AWS region "us-fake-9"/);
      expect(server.requests).toHaveLength(0);
      expect(first.upstream.cacheSizes().signers).toBe(0);

      const regions = PARTITIONS[0]?.regions ?? [];
      expect(regions.length).toBeGreaterThan(MAX_CACHED_SIGNERS);
      for (const region of regions) {
        expect(await callTool(ExecuteQuery, { query: "up", region }, warm())).toEqual(VECTOR);
      }
      expect(first.upstream.cacheSizes()).toMatchObject({
        signers: MAX_CACHED_SIGNERS,
        credentialsProviders: 1,
      });
    } finally {
      await server.close();
    }
  });
});
