import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FileSessionStore } from "../../src/sessions/fileStore.js";
import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import type { SessionRecord } from "../../src/sessions/store.js";
import { captureOutput } from "../support/capture.js";
import { testContext } from "../support/context.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { FailingStore } from "../support/failingStore.js";
import {
  callHttp,
  type Handler,
  type HttpResult,
  header,
  JSON_HEADERS,
  makeHandler,
} from "../support/handler.js";
import { ignores } from "../support/logLevel.js";

/** Sessions through the whole handler: what a client sees of the session store's limits and failures. */

const BASE_ENV = { PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" };

function postRaw(handler: Handler, body: string, sessionId?: string): Promise<HttpResult> {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return callHttp(handler, { method: "POST", path: "/mcp", headers, body });
}

const post = (handler: Handler, body: unknown, sessionId?: string) =>
  postRaw(handler, JSON.stringify(body), sessionId);

function initializeWith(paramsJson: string): string {
  return `{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":${paramsJson}}`;
}

const CLIENT = '"protocolVersion":"2025-06-18","clientInfo":{"name":"c","version":"1"}';

/** The reproductions of the review: each was a 503 (DynamoDB) or a 500 (memory) before. */
const UNSTORABLE: [string, string, RegExp][] = [
  [
    "a number like 1e300 in capabilities",
    `{${CLIENT},"capabilities":{"roots":{"listChanged":true,"depth":1e300}}}`,
    /^Invalid params for initialize: params\.capabilities\.roots\.depth is 1e\+300, a number a session cannot store exactly: numbers must be 0 or between 1e-130 and 9007199254740991 \(2\^53 - 1\) in magnitude$/,
  ],
  [
    "2^53 + 2 in clientInfo",
    '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1","build":9007199254740994}}',
    /^Invalid params for initialize: params\.clientInfo\.build is 9007199254740994, a number a session cannot store exactly/,
  ],
  [
    "a 420 KB clientInfo.name",
    `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"${"x".repeat(420_000)}","version":"1"}}`,
    /^Invalid params for initialize: params take more than 65536 bytes as JSON; a session stores at most 65536; the longest string is params\.clientInfo\.name, 420000 characters$/,
  ],
  [
    "a capability key named constructor (the DynamoDB marshaller took the map for a class)",
    `{${CLIENT},"capabilities":{"constructor":"x"}}`,
    /^Invalid params for initialize: params\.capabilities\.constructor: a key named "constructor" cannot be stored in a session$/,
  ],
  [
    "params nested 3,000 deep",
    `{${CLIENT},"capabilities":{},"extra":${'{"a":'.repeat(2_999)}{}${"}".repeat(2_999)}}`,
    /^Invalid params for initialize: params\.extra\.a\.a\.a\.a\.a\.….* is nested 21 levels deep, deeper than the 20 a session stores$/,
  ],
];

describe.each([
  { store: "memory", dynamo: false },
  { store: "DynamoDB (dynalite)", dynamo: true },
])("initialize params the session store cannot hold, $store", ({ dynamo }) => {
  let dynalite: Dynalite | undefined;
  let handler: Handler;

  beforeAll(async () => {
    if (dynamo) dynalite = await startDynalite();
    handler = makeHandler({
      ...BASE_ENV,
      ...(dynalite ? { SESSION_TABLE: dynalite.tableName, DYNAMODB_ENDPOINT: dynalite.endpoint } : {}),
    });
  });
  afterAll(async () => {
    await dynalite?.close();
  });

  it.each(UNSTORABLE)(
    "%s: 400 with -32602 naming what is wrong and the limit, no session",
    async (_, params, message) => {
      const result = await postRaw(handler, initializeWith(params));
      expect(result.statusCode).toBe(400);
      expect(header(result, "Mcp-Session-Id")).toBeUndefined();
      expect(header(result, "Retry-After")).toBeUndefined();
      const body = JSON.parse(result.body);
      expect(body).toMatchObject({ jsonrpc: "2.0", id: "init-1", error: { code: -32602 } });
      expect(body.error.message).toMatch(message);
    },
  );

  it("a real client's initialize (a few KB of capabilities) starts a session", async () => {
    const capabilities = {
      roots: { listChanged: true },
      sampling: {},
      elicitation: {},
      experimental: { "vendor.feature": { models: Array.from({ length: 100 }, (_, i) => `model-${i}`) } },
    };
    const result = await post(handler, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "IDE", version: "1.2.3" } },
    });
    expect(result.statusCode).toBe(200);
    const id = header(result, "Mcp-Session-Id") as string;
    expect((await post(handler, { jsonrpc: "2.0", id: 2, method: "ping" }, id)).statusCode).toBe(200);
  });
});

describe("through the handler", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  };

  it("a logging/setLevel whose write fails is 503 and not kept; the next request is served as the record says", async () => {
    const store = new FailingStore();
    const servers: Server[] = [];
    const handler = makeHandler(BASE_ENV, { sessionStore: store, onServerCreated: (s) => servers.push(s) });
    const id = header(await post(handler, initialize), "Mcp-Session-Id") as string;

    store.failures = 1;
    const failed = await post(
      handler,
      { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "error" } },
      id,
    );
    expect(failed.statusCode).toBe(503);
    expect(header(failed, "Retry-After")).toBe("1");
    expect((await store.get(id))?.logLevel).toBeUndefined();

    // Same container, next request: a server rebuilt from the record, with no level set.
    expect((await post(handler, { jsonrpc: "2.0", id: 3, method: "ping" }, id)).statusCode).toBe(200);
    expect(servers).toHaveLength(2);
    expect(await ignores(servers[1], "warning")).toBe(false);

    // The client retries once the store answers again.
    const retried = await post(
      handler,
      { jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "error" } },
      id,
    );
    expect(retried.statusCode).toBe(200);
    expect(await store.get(id)).toMatchObject({ logLevel: "error", version: 2 });
    expect((await post(handler, { jsonrpc: "2.0", id: 5, method: "ping" }, id)).statusCode).toBe(200);
    expect(servers).toHaveLength(2);
    expect(await ignores(servers[1], "warning")).toBe(true);
  });

  it("a read-only call whose expiry refresh meets a busy session lock is answered, and the refresh that did not happen is logged", async () => {
    const directory = await mkdtemp(join(tmpdir(), "sessions-busy-"));
    try {
      const store = new FileSessionStore({ directory });
      const handler = makeHandler({ ...BASE_ENV, LOG_LEVEL: "WARN" }, { sessionStore: store });
      const id = header(await post(handler, initialize), "Mcp-Session-Id") as string;
      // Last refreshed two minutes ago: this request's refresh is due (at most one a minute).
      const created = (await store.get(id, testContext())) as SessionRecord;
      const due = { expiresAt: created.expiresAt - 120 };
      expect(await store.update(id, 1, due, false, testContext())).toBe("updated");
      // Another writer holds the session's lock (as a writer in another process does: its lock file).
      const lock = join(directory, `${id}.lock`);
      await writeFile(lock, "another writer", { flag: "wx" });

      const output = captureOutput();
      let answer: HttpResult;
      try {
        answer = await post(handler, { jsonrpc: "2.0", id: 2, method: "ping" }, id);
      } finally {
        vi.restoreAllMocks();
      }
      expect(answer.statusCode, answer.body).toBe(200);
      expect(JSON.parse(answer.body)).toStrictEqual({ jsonrpc: "2.0", id: 2, result: {} });
      const warnings = output.lines().filter((line) => line.level === "WARN");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        message: expect.stringMatching(/^session expiry not refreshed; /),
        session_id_prefix: id.slice(0, 8),
        expires_at: new Date(due.expiresAt * 1000).toISOString(),
        reason: expect.stringMatching(/lock/),
      });
      expect((await store.get(id, testContext()))?.expiresAt).toBe(due.expiresAt);

      // The lock released, the next request refreshes it.
      await rm(lock);
      expect((await post(handler, { jsonrpc: "2.0", id: 3, method: "ping" }, id)).statusCode).toBe(200);
      expect((await store.get(id, testContext()))?.expiresAt).toBeGreaterThan(due.expiresAt + 60);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("a session evicted from a full memory store answers 404 exactly as an unknown id", async () => {
    const handler = makeHandler(BASE_ENV, {
      sessionStore: new MemorySessionStore(Date.now, { maxSessions: 2 }),
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(header(await post(handler, initialize), "Mcp-Session-Id") as string);
    const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
    const evicted = await post(handler, ping, ids[0]);
    const unknown = await post(handler, ping, "0f8fad5b-d9cb-469f-a165-70867728950e");
    expect(evicted.statusCode).toBe(404);
    expect(evicted.body).toBe(unknown.body);
    expect(JSON.parse(evicted.body)).toMatchObject({ error: { code: -32001, message: "Session not found" } });
    for (const id of ids.slice(1)) expect((await post(handler, ping, id)).statusCode).toBe(200);
  });

  it("a flood of initializes of 60 KB with SESSION_STORE=file keeps the directory within 8 MiB: the oldest are evicted and answer 404 exactly as an unknown id, the newest are served", async () => {
    const directory = await mkdtemp(join(tmpdir(), "file-sessions-flood-"));
    try {
      const handler = makeHandler({ ...BASE_ENV, SESSION_STORE: "file", SESSION_DIR: directory });
      const padding = "x".repeat(60_000);
      const ids: string[] = [];
      // 200 × 60 KB: 12 MB unbounded, half again the limit.
      for (let i = 0; i < 200; i++) {
        const params = {
          protocolVersion: "2025-06-18",
          capabilities: { experimental: { "vendor.padding": { text: padding } } },
          clientInfo: { name: `flood-${i}`, version: "1" },
        };
        const result = await post(handler, { jsonrpc: "2.0", id: 1, method: "initialize", params });
        expect(result.statusCode).toBe(200);
        ids.push(header(result, "Mcp-Session-Id") as string);
      }
      // The bound docs/protocol.md documents (FILE_STORE_LIMITS).
      const maxBytes = 8 * 1024 * 1024;
      const files = (await readdir(directory)).filter((name) => name.endsWith(".json"));
      const sizes = await Promise.all(files.map(async (name) => (await stat(join(directory, name))).size));
      expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(maxBytes);
      // As many as fit: none evicted before the directory was full.
      expect(files.length).toBe(Math.floor(maxBytes / Math.max(...sizes)));

      const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
      const evicted = await post(handler, ping, ids[0]);
      const unknown = await post(handler, ping, "0f8fad5b-d9cb-469f-a165-70867728950e");
      expect(evicted.statusCode).toBe(404);
      expect(evicted.body).toBe(unknown.body);
      expect((await post(handler, ping, ids.at(-1))).statusCode).toBe(200);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
