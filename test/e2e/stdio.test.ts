import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORE_TOOLS, TOOL_INTERFACE } from "../helpers/toolInterface.js";
import { runOk } from "../support/childProcess.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";

// The stdio entry (`npm run -s stdio`, the `prometheus-mcp-stdio` bin) as an MCP client spawns it:
// the bundle `npm ci` builds (the `prepare` script), rebuilt here from the working tree, run as the
// bin's own file, driven by the SDK's stdio client.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};
const BIN = join(ROOT, packageJson.bin["prometheus-mcp-stdio"] ?? "missing bin");
const TOOL_NAMES = Object.keys(TOOL_INTERFACE).sort();
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
      expect(tools.map((tool) => tool.name).sort()).toStrictEqual(TOOL_NAMES);
      expect(client.getServerVersion()?.name).toBe("prometheus-mcp-lambda");
    } finally {
      await client.close();
    }
    for (const [settings, names] of [
      [{ PYTHON_COMPAT: "true" }, CORE_NAMES],
      [{ TOOLS: "alerting,ListMetrics" }, ["ListAlerts", "ListMetrics", "ListRules", "ListSilences"]],
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

describe.skipIf(!prometheusAvailable())("stdio entry against a real Prometheus", () => {
  let prometheus: RunningPrometheus;
  let settings: Record<string, string>;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    settings = { PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" };
  }, 120_000);

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
