import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthProxy } from "../support/authProxy.js";
import { longLabelAnswer } from "../support/bigAnswer.js";
import { runOk } from "../support/childProcess.js";
import { startFaultServer, successBody } from "../support/faultServer.js";
import { callHttp, JSON_HEADERS, makeHandler } from "../support/handler.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";
import { startSlowProxy } from "../support/slowProxy.js";
import { TEST_ROTATED_TOKEN, TEST_TOKEN } from "../support/testSecrets.js";
import { CORE_TOOLS, PLAIN_TOOL_INTERFACE } from "../support/toolInterface.js";

// The stdio entry (`npm run -s stdio`, the `prometheus-mcp-stdio` bin) as an MCP client spawns it:
// the bundle `npm ci` builds (the `prepare` script), rebuilt here from the working tree, run as the
// bin's own file, driven by the SDK's stdio client.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};
const BIN = join(ROOT, packageJson.bin["prometheus-mcp-stdio"] ?? "missing bin");
const PLAIN_NAMES = Object.keys(PLAIN_TOOL_INTERFACE).sort();
const CORE_NAMES = [...CORE_TOOLS].sort();

/** The child's whole environment: nothing from ours but PATH, and no way to reach AWS. */
function childEnv(settings: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_ACCESS_KEY_ID: "AKIDSTDIOFAKE",
    AWS_SECRET_ACCESS_KEY: "stdio-secret-not-real",
    AWS_REGION: "us-east-1",
    LOG_LEVEL: "WARN",
    ...settings,
  };
}

async function connect(settings: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "stdio-e2e", version: "1.0.0" });
  // The child's stderr is piped (and left unread) so the server's logs stay out of the test output.
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN],
      env: childEnv(settings),
      stderr: "pipe",
    }),
  );
  return client;
}

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bin until it exits: `messages` are sent as lines and stdin is closed; without them stdin
 * is left open, so only the server's own decision ends it.
 */
function runServer(settings: Record<string, string>, messages?: object[]): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN], {
      env: childEnv(settings),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the stdio server did not exit\n${stdout}\n${stderr}`));
    }, 20_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (messages !== undefined) {
      child.stdin.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
    }
  });
}

interface Reply {
  jsonrpc: string;
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A running bin, driven line by line: its replies are read as they come. */
interface Session {
  /** Writes to stdin, waiting while the pipe is full. */
  write(data: string | Buffer): Promise<void>;
  /** The first reply under `id`, waited for. */
  reply(id: number | string): Promise<Reply>;
  /** The first message (reply or notification) that `matches`, waited for. */
  message(matches: (message: Reply & { method?: string; params?: unknown }) => boolean): Promise<Reply>;
  /** Every reply so far, in order. */
  replies: Reply[];
  stderr(): string;
  /** Closes stdin and waits for the process to exit. */
  end(): Promise<Exited>;
}

function startSession(settings: Record<string, string>): Session {
  const child = spawn(process.execPath, [BIN], { env: childEnv(settings), stdio: ["pipe", "pipe", "pipe"] });
  const replies: Reply[] = [];
  const waiters: Array<() => void> = [];
  let stdout = "";
  let partial = "";
  let stderr = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    stdout += chunk;
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() as string;
    for (const line of lines) replies.push(JSON.parse(line) as Reply);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<Exited>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
  return {
    replies,
    stderr: () => stderr,
    write: (data) =>
      new Promise((resolve, reject) =>
        child.stdin.write(data, (error) => (error ? reject(error) : resolve())),
      ),
    reply(id) {
      return this.message((reply) => reply.id === id);
    },
    async message(matches) {
      for (;;) {
        const found = replies.find(matches);
        if (found !== undefined) return found;
        if (child.exitCode !== null) throw new Error("the stdio server exited without sending it");
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async end() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** A line for each message. */
function lines(...messages: object[]): string {
  return messages.map((message) => `${JSON.stringify(message)}\n`).join("");
}

/** The log lines on stderr, each JSON. */
function logLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A stack trace, raw or inside a JSON string. */
const STACK_TRACE = /(\n|\\n)\s+at /;

/** `bytes` bytes that look random, the same each run. */
function noise(bytes: number, seed: number): Buffer {
  const buffer = Buffer.alloc(bytes);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < bytes; i += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    buffer[i] = state & 0xff;
  }
  return buffer;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

beforeAll(async () => {
  await runOk(process.execPath, [join(ROOT, "scripts/build-stdio.mjs")], { cwd: ROOT, timeoutMs: 120_000 });
}, 180_000);

describe("stdio entry: settings", () => {
  it("lists every tool to the SDK's stdio client; TOOLS and PYTHON_COMPAT choose them as in Lambda", async () => {
    const client = await connect({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });
    try {
      const { tools } = await client.listTools();
      // A plain Prometheus: no GetAvailableWorkspaces (nor workspace_id, region, profile).
      expect(tools.map((tool) => tool.name).sort()).toStrictEqual(PLAIN_NAMES);
      expect(client.getServerVersion()?.name).toBe("prometheus-mcp-lambda");
    } finally {
      await client.close();
    }
    for (const [settings, names] of [
      [{ PYTHON_COMPAT: "true" }, CORE_NAMES],
      [
        { TOOLS: "alerting,ListMetrics" },
        ["GetAlertHistory", "GetHealthOverview", "ListAlerts", "ListMetrics", "ListRules", "ListSilences"],
      ],
    ] as const) {
      const chosen = await connect({
        PROMETHEUS_URL: "http://127.0.0.1:1",
        PROMETHEUS_AUTH: "none",
        ...settings,
      });
      try {
        expect((await chosen.listTools()).tools.map((tool) => tool.name).sort()).toStrictEqual(names);
      } finally {
        await chosen.close();
      }
    }
  });

  it("warns on stderr at start: SigV4 for a URL that is not AMP's, and a misspelled setting", async () => {
    const exited = await runServer({ PROMETHEUS_URL: "http://127.0.0.1:9090", PROMETHEUS_ULR: "x" }, []);
    expect(exited.code).toBe(0);
    expect(exited.stdout).toBe("");
    const warnings = exited.stderr
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: string; message: string })
      .filter((line) => line.level === "WARN")
      .map((line) => line.message);
    expect(warnings).toStrictEqual([
      "Warning: PROMETHEUS_URL=http://127.0.0.1:9090 is not an AMP workspace URL, yet PROMETHEUS_AUTH is sigv4 (the default), so every call is signed for AMP with AWS credentials. For a plain Prometheus set PROMETHEUS_AUTH=none.",
      "Warning: PROMETHEUS_ULR is not a setting of this server and is ignored; did you mean PROMETHEUS_URL?",
    ]);
  });

  it.each([
    ["SESSIONS", "maybe"],
    ["PROMETHEUS_AUTH", "bogus"],
    ["PROMETHEUS_URL", "ftp://example.com"],
    ["TOOLS", "core,ListEverything"],
  ])(
    "exits non-zero on %s=%s without waiting for stdin, naming the variable on stderr, stdout empty",
    async (name, value) => {
      const run = await runServer({ [name]: value });
      expect(run.code).not.toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim()).toMatch(
        new RegExp(`^Invalid configuration: ${name}=".*" \\(expected .*\\)$`),
      );
    },
  );
});

describe("stdio entry: bad input is answered, logged in one short line, and the server goes on", () => {
  const settings = { PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" };

  it("answers a line over 10 MiB -32700 (id null), then the next request, and serves until stdin closes", async () => {
    const session = startSession(settings);
    await session.write(lines(INITIALIZE, INITIALIZED));
    expect((await session.reply(1)).result).toBeDefined();

    const head =
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ExecuteQuery","arguments":{"query":"';
    const big = `${head}${"a".repeat(11 * 1024 * 1024)}"}}}`;
    await session.write(`${big}\n`);
    await session.write(lines({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
    const listed = await session.reply(3);
    expect((listed.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);

    // Still serving: a later request is answered too.
    await session.write(lines({ jsonrpc: "2.0", id: 4, method: "ping" }));
    expect(await session.reply(4)).toStrictEqual({ jsonrpc: "2.0", id: 4, result: {} });

    const run = await session.end();
    expect(run.code, run.stderr).toBe(0);
    expect(session.replies.map((reply) => reply.id)).toStrictEqual([1, null, 3, 4]);
    expect(session.replies[1]).toStrictEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32700,
        message: `Parse error: the line of ${big.length} bytes is over the limit of 10485760 bytes and was dropped`,
      },
    });
    const warnings = logLines(run.stderr).filter((log) => log.level === "WARN");
    expect(warnings).toStrictEqual([
      expect.objectContaining({
        message: "stdin line answered with an error",
        reason: "too long",
        bytes: big.length,
        prefix: `${head.slice(0, 32)}…`,
        code: -32700,
      }),
    ]);
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.stderr.length).toBeLessThan(2_048);
  });

  it("answers every line of 2 MB of random bytes with an error and the request after them, its log bounded", async () => {
    const junk = noise(2_000_000, 8);
    const session = startSession(settings);
    await session.write(lines(INITIALIZE, INITIALIZED));
    await session.write(junk);
    await session.write(`\n${lines({ jsonrpc: "2.0", id: 2, method: "tools/list" })}`);
    expect(((await session.reply(2)).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    const run = await session.end();
    expect(run.code, run.stderr.slice(0, 2_000)).toBe(0);

    // One error per line that is not blank (a \r before the newline dropped, as the transport does).
    const expectedErrors = junk
      .toString("latin1")
      .split("\n")
      .filter((line) => !/^[ \t\r]*$/.test(line)).length;
    expect(expectedErrors).toBeGreaterThan(5_000);
    const errors = session.replies.filter((reply) => reply.error !== undefined);
    expect(errors).toHaveLength(expectedErrors);
    for (const reply of errors) {
      expect(reply.id).toBeNull();
      expect([-32700, -32600]).toContain(reply.error?.code);
    }
    expect(
      session.replies.filter((reply) => reply.result !== undefined).map((reply) => reply.id),
    ).toStrictEqual([1, 2]);

    // At most 10 lines a second and a count of the rest, each line short and without a stack trace.
    expect(run.stderr.length).toBeLessThan(64 * 1024);
    expect(run.stderr).not.toMatch(STACK_TRACE);
    const logs = logLines(run.stderr);
    const warnings = logs.filter((log) => log.level === "WARN");
    for (const line of run.stderr.split("\n")) expect(line.length).toBeLessThan(1_024);
    const counted = warnings
      .filter((log) => log.message === "more bad input, not logged one by one")
      .reduce((sum, log) => sum + (log.count as number), 0);
    const logged = warnings.filter((log) => log.message === "stdin line answered with an error").length;
    expect(logged).toBeGreaterThan(0);
    expect(logged + counted).toBe(expectedErrors);
  });

  it("answers a line that is not JSON -32700 and JSON that is not JSON-RPC -32600, each once; skips blank lines", async () => {
    const session = startSession({ ...settings, LOG_LEVEL: "WARN" });
    await session.write(
      [
        JSON.stringify(INITIALIZE),
        "hello",
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"',
        "[1,2]",
        '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"x"}',
        "",
        "  \r",
        // The last line has no newline: the end of stdin ends it.
        '{"jsonrpc":"2.0","id":4,"method":"ping"}',
      ].join("\n"),
    );
    const run = await session.end();
    expect(run.code, run.stderr).toBe(0);
    const byId = (id: Reply["id"]) => session.replies.filter((reply) => reply.id === id);
    expect(session.replies).toHaveLength(6);
    expect(byId(1)[0]?.result).toBeDefined();
    expect(byId(null).map((reply) => reply.error?.code)).toStrictEqual([-32700, -32700, -32600]);
    expect(byId(3)).toStrictEqual([
      {
        jsonrpc: "2.0",
        id: 3,
        error: {
          code: -32600,
          message: "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        },
      },
    ]);
    expect(byId(4)).toStrictEqual([{ jsonrpc: "2.0", id: 4, result: {} }]);

    const warnings = logLines(run.stderr).filter((log) => log.level === "WARN");
    expect(warnings.map((log) => [log.reason, log.bytes, log.code])).toStrictEqual([
      ["not JSON", 5, -32700],
      ["not JSON", 45, -32700],
      ["not JSON-RPC", 5, -32600],
      ["not JSON-RPC", 59, -32600],
    ]);
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  // Issue 36, finding 12: these two ids read as one (JSON.parse rounds both to 2^53), and both
  // pings were answered under it. HTTP answers each -32600 with id null; stdio now gives the same.
  it("answers ids past 2^53 - 1 word for word as HTTP answers the same lines, never two replies under one rounded id", async () => {
    const unreadable = [
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
      '{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}',
      '{"jsonrpc":"2.0","id":-9007199254740993,"result":{}}',
    ];
    const http = makeHandler(settings);
    const overHttp: unknown[] = [];
    for (const body of unreadable) {
      const answer = await callHttp(http, { method: "POST", path: "/mcp", headers: JSON_HEADERS, body });
      expect(answer.statusCode).toBe(400);
      overHttp.push(JSON.parse(answer.body));
    }
    expect(overHttp[0]).toMatchObject({ id: null, error: { code: -32600 } });

    const session = startSession(settings);
    await session.write(lines(INITIALIZE, INITIALIZED));
    expect((await session.reply(1)).result).toBeDefined();
    await session.write(`${unreadable.join("\n")}\n`);
    await session.write(lines({ jsonrpc: "2.0", id: 5, method: "ping" }));
    expect(await session.reply(5)).toStrictEqual({ jsonrpc: "2.0", id: 5, result: {} });
    const run = await session.end();
    expect(run.code, run.stderr).toBe(0);
    expect(session.replies.slice(1)).toStrictEqual([...overHttp, { jsonrpc: "2.0", id: 5, result: {} }]);
  });
});

describe("stdio entry: protocol errors caused by the client", () => {
  it("logs responses to no request in short lines, at most 10 a second and a count, without stacks", async () => {
    const session = startSession({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });
    const stray = { jsonrpc: "2.0", id: 99, result: { padding: "x".repeat(5_000) } };
    await session.write(lines(...Array.from({ length: 2_000 }, () => stray)));
    const run = await session.end();
    expect(run.code, run.stderr.slice(0, 2_000)).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.stderr.length).toBeLessThan(16 * 1024);
    const warnings = logLines(run.stderr).filter((log) => log.level === "WARN");
    const logged = warnings.filter((log) => log.message === "stdio protocol error");
    const counted = warnings
      .filter((log) => log.message === "more bad input, not logged one by one")
      .reduce((sum, log) => sum + (log.count as number), 0);
    expect(logged.length + counted).toBe(2_000);
    expect(logged[0]?.error).toMatch(
      /^Received a response for an unknown message ID: .*… \(\d+ characters\)$/,
    );
  });
});

describe.skipIf(!prometheusAvailable())("stdio entry against a real Prometheus", () => {
  let prometheus: RunningPrometheus;
  let settings: Record<string, string>;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    settings = { PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" };
  }, 120_000);

  it("reads a Prometheus behind a bearer token given as the value itself, and never writes it (debug logs included)", async () => {
    const bearer = await startAuthProxy(prometheus.url, { authorization: () => `Bearer ${TEST_TOKEN}` });
    try {
      const call = (id: number) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "ExecuteQuery",
          arguments: { query: "test_temperature_celsius", time: String(DATASET.end) },
        },
      });
      const secured = { PROMETHEUS_URL: bearer.url, PROMETHEUS_AUTH: "bearer", LOG_LEVEL: "DEBUG" };
      const run = await runServer({ ...secured, PROMETHEUS_SECRET: TEST_TOKEN }, [
        INITIALIZE,
        INITIALIZED,
        call(2),
      ]);
      const answer = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "null") as Reply;
      expect((answer.result as { isError?: boolean }).isError, run.stdout).toBeFalsy();
      expect(bearer.seen.at(-1)?.authorization).toBe(`Bearer ${TEST_TOKEN}`);
      expect(run.stderr).toContain("PROMETHEUS_SECRET holds the credentials themselves");
      // A refused token: the error says where it came from, not what it is (the suite's scan checks both
      // streams of the child as well).
      const refused = await runServer({ ...secured, PROMETHEUS_SECRET: TEST_ROTATED_TOKEN }, [
        INITIALIZE,
        INITIALIZED,
        call(3),
      ]);
      const error = JSON.parse(refused.stdout.trim().split("\n").at(-1) ?? "null") as Reply;
      expect(JSON.stringify(error.result)).toMatch(
        /refused the credentials from the PROMETHEUS_SECRET's value \(HTTP 401/,
      );
      for (const output of [run.stdout, run.stderr, refused.stdout, refused.stderr]) {
        expect(output).not.toContain(TEST_TOKEN);
        expect(output).not.toContain(TEST_ROTATED_TOKEN);
      }
    } finally {
      await bearer.close();
    }
  });

  afterAll(async () => {
    await prometheus?.close();
  });

  it("runs ExecuteQuery and gets the dataset's exact value, a profile argument included", async () => {
    const client = await connect(settings);
    try {
      const query = { query: 'test_requests_total{instance="a"}', time: String(DATASET.end) };
      for (const args of [query, { ...query, profile: "stdio-e2e" }]) {
        const result = (await client.callTool({ name: "ExecuteQuery", arguments: args })) as unknown as {
          isError?: boolean;
          structuredContent: { resultType: string; result: { value: [number, string] }[] };
        };
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(result.structuredContent.resultType).toBe("vector");
        expect(result.structuredContent.result.map((sample) => sample.value)).toStrictEqual([
          [DATASET.end, String(10 * (DATASET.sampleCount - 1))],
        ]);
      }
    } finally {
      await client.close();
    }
  });

  it("writes only JSON-RPC to stdout and its logs to stderr, and exits once stdin closes", async () => {
    const requests = [
      INITIALIZE,
      INITIALIZED,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "ExecuteQuery", arguments: { query: "up" } },
      },
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "ListMetrics", arguments: {} },
      },
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "NoSuchTool", arguments: {} } },
      { jsonrpc: "2.0", id: 6, method: "ping" },
      // Cancelled as soon as sent: it gets no reply, and its context ends all the same.
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "ExecuteQuery", arguments: { query: "up" } },
      },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "test" } },
    ];
    const run = await runServer({ ...settings, LOG_LEVEL: "DEBUG" }, requests);
    expect(run.code, run.stderr).toBe(0);

    const replies = run.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: unknown; error?: unknown });
    expect(run.stdout.endsWith("\n")).toBe(true);
    for (const reply of replies) {
      expect(reply.jsonrpc).toBe("2.0");
      expect("result" in reply !== "error" in reply, JSON.stringify(reply)).toBe(true);
    }
    expect(replies.map((reply) => reply.id).sort()).toStrictEqual([1, 2, 3, 4, 5, 6]);
    expect(replies.find((reply) => reply.id === 5)?.error).toMatchObject({ code: -32602 });

    const logs = run.stderr
      .split("\n")
      .filter((line) => line !== "")
      .map(
        (line) => JSON.parse(line) as { level: string; message: string; method?: string; outcome?: string },
      );
    expect(logs).toContainEqual(
      expect.objectContaining({ level: "INFO", message: "serving MCP over stdio" }),
    );
    const answered = logs.filter((log) => log.level === "DEBUG" && log.message === "request");
    expect(answered.map((log) => log.method).sort()).toStrictEqual([
      "initialize",
      "ping",
      "tools/call",
      "tools/call",
      "tools/call",
      "tools/call",
      "tools/list",
    ]);
    expect(answered.filter((log) => log.outcome === "cancelled")).toHaveLength(1);
  });
});

describe.skipIf(!prometheusAvailable())("stdio entry: a slow query a person can watch", () => {
  let prometheus: RunningPrometheus;

  beforeAll(async () => {
    prometheus = await startPrometheus();
  }, 120_000);

  afterAll(async () => {
    await prometheus?.close();
  });

  // Every series of the dataset over its hour: about 4,000 tokens, so a 1,000-token budget cuts it.
  const RANGE = {
    query: '{__name__=~"test_.+|probe_success"}',
    start: String(DATASET.start),
    end: String(DATASET.end),
    step: "15",
  };

  it("tells a slow range query's steps as they happen (asked, a retry after 503, answering, reading, cutting), then answers", async () => {
    const proxy = await startSlowProxy(prometheus.url, {
      failFirst: 1,
      headersAfterMs: 300,
      chunkBytes: 1024,
      chunkEveryMs: 120,
    });
    const client = await connect({
      PROMETHEUS_URL: proxy.url,
      PROMETHEUS_AUTH: "none",
      MAX_RESULT_TOKENS: "1000",
    });
    try {
      const told: Array<{ progress: number; message?: string; at: number }> = [];
      const startedAt = Date.now();
      const result = (await client.callTool({ name: "ExecuteRangeQuery", arguments: RANGE }, undefined, {
        onprogress: (update) => told.push({ ...update, at: Date.now() }),
        timeout: 60_000,
      })) as {
        isError?: boolean;
        structuredContent: { truncated?: unknown; series_stats?: { rows: unknown[] } };
      };
      const answeredAt = Date.now();
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.structuredContent.truncated).toBeDefined();
      expect(result.structuredContent.series_stats?.rows).toHaveLength(4);

      const messages = told.map((update) => update.message ?? "");
      expect(told.length, messages.join("\n")).toBeGreaterThanOrEqual(5);
      // Strictly increasing, as MCP requires, and all of it before the result.
      expect(told.map((update) => update.progress)).toStrictEqual(told.map((_, i) => i + 1));
      for (const update of told) expect(update.at).toBeLessThanOrEqual(answeredAt);
      expect(messages[0]).toMatch(/^Asked Prometheus \(.*\/api\/v1\/query_range\)$/);
      expect(messages).toContainEqual(
        expect.stringMatching(/^Attempt 2 of 3 after HTTP 503 from Prometheus, in \d+\.\d s$/),
      );
      expect(messages).toContainEqual("Prometheus is answering (HTTP 200)");
      const reading = messages.filter((message) => message.startsWith("Reading Prometheus's answer: "));
      // The body trickles in over a second or more: several updates, but never more than four a second.
      // Kept on this run's clock: the count is bounded by the time the call took here, which a busy
      // machine only lengthens (a looser bound, never a false failure); the throttle itself is asserted
      // on a clock moved by hand in test/unit/progress.test.ts, and this checks the stdio entry uses it.
      expect(reading.length).toBeGreaterThanOrEqual(2);
      const readingSeconds = (answeredAt - startedAt) / 1000;
      expect(reading.length).toBeLessThanOrEqual(4 * readingSeconds + 1);
      expect(reading.at(-1)).toMatch(/^Reading Prometheus's answer: (\d+ entr(y|ies), )?\d+ kB so far$/);
      expect(messages.at(-1)).toMatch(
        /^Cutting the answer to the 1,000-token budget: 4 series \(\d+ kB\) came back; keeping statistics for every one and the most unusual$/,
      );
      // The order a person reads them in: asked, retried, answering, reading, cutting.
      const first = (pattern: RegExp) => messages.findIndex((message) => pattern.test(message));
      expect(first(/^Attempt 2/)).toBeLessThan(first(/is answering/));
      expect(first(/is answering/)).toBeLessThan(first(/^Reading/));
      expect(first(/^Reading/)).toBeLessThan(first(/^Cutting/));
    } finally {
      await client.close();
      await proxy.close();
    }
  }, 60_000);

  it("sends progress only to a call that carries a progressToken; the answer is the same either way", async () => {
    const proxy = await startSlowProxy(prometheus.url, { chunkBytes: 2048, chunkEveryMs: 300 });
    const session = startSession({ PROMETHEUS_URL: proxy.url, PROMETHEUS_AUTH: "none" });
    try {
      const call = (id: number, meta?: object) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "ExecuteRangeQuery",
          arguments: RANGE,
          ...(meta === undefined ? {} : { _meta: meta }),
        },
      });
      await session.write(lines(INITIALIZE, INITIALIZED));
      await session.reply(1);
      await session.write(lines(call(2)));
      const plain = await session.reply(2);
      const before = session.replies.length;
      await session.write(lines(call(3, { progressToken: "watch-3" })));
      const watched = await session.reply(3);
      const notifications = session.replies as unknown as Array<{
        method?: string;
        params?: { progressToken?: unknown };
      }>;
      const progress = notifications.filter((message) => message.method === "notifications/progress");
      expect(progress.length).toBeGreaterThanOrEqual(3);
      // Every one of them came with the call that asked, each naming its token.
      expect(
        notifications.slice(0, before).some((message) => message.method === "notifications/progress"),
      ).toBe(false);
      for (const message of progress) expect(message.params?.progressToken).toBe("watch-3");
      expect(watched.result).toStrictEqual(plain.result);
    } finally {
      await session.end();
      await proxy.close();
    }
  }, 60_000);
});

describe("stdio entry: charts", () => {
  it("draws the long-label chart (ten 100,000-character labels) in its worker, beside the bin: a ping sent while it draws is answered first", async () => {
    // A first chart of one short series loads the renderer; the second, the long-label one, is drawn
    // by a renderer ready at once.
    const upstream = await startFaultServer([
      {
        status: 200,
        body: successBody({
          resultType: "matrix",
          result: [{ metric: { __name__: "up" }, values: [[1_700_000_000, "1"]] }],
        }),
      },
      { status: 200, body: successBody(longLabelAnswer()) },
    ]);
    const session = startSession({ PROMETHEUS_URL: upstream.url, PROMETHEUS_AUTH: "none" });
    const plot = (id: number, meta: object = {}) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "PlotRangeQuery",
        arguments: { query: "up", start: "1700000000", end: "1700003540", step: "60" },
        _meta: meta,
      },
    });
    try {
      await session.write(lines(INITIALIZE, INITIALIZED, plot(2)));
      await session.reply(2);
      await session.write(lines(plot(3, { progressToken: "chart" })));
      await session.message(
        (message) =>
          message.method === "notifications/progress" &&
          (message.params as { message?: string }).message === "Drawing the chart",
      );
      await session.write(lines({ jsonrpc: "2.0", id: 4, method: "ping" }));
      const chart = (await session.reply(3)) as Reply & {
        result?: { isError?: boolean; content: Array<{ type: string }> };
      };
      const order = session.replies
        .filter((reply) => reply.id === 3 || reply.id === 4)
        .map((reply) => reply.id);
      expect(order).toStrictEqual([4, 3]);
      // In time: an image, a tool error or the deadline's -32001; here the legend is cut, and drawn.
      expect(chart.result?.content[0]?.type, JSON.stringify(chart).slice(0, 500)).toBe("image");
    } finally {
      await session.end();
      await upstream.close();
    }
  }, 120_000);
});
