import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningOffline, startOffline } from "../support/offline.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";

// `npm start` restarted under a connected client (docs/protocol.md, "Sessions"): the local default is the file
// store (no SESSION_STORE here, only SESSION_DIR), so the SDK v1 client, which never starts a new session
// by itself, keeps its Mcp-Session-Id and its next call is served by the new process, with the same answer.
// The memory store, the control, loses the session: the same client then gets 404 "Session not found".

const STARTUP_MS = 120_000;
const QUERY = { query: "count(test_temperature_celsius)", time: String(DATASET.start + 900) };

interface Called {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

describe.skipIf(!prometheusAvailable())(
  "the SDK client across a restart of serverless offline (npm start)",
  () => {
    let prometheus: RunningPrometheus | undefined;
    /** What each test started, stopped after it whatever happened. */
    let servers: RunningOffline[] = [];
    let clients: Client[] = [];
    let dirs: string[] = [];

    beforeAll(async () => {
      prometheus = await startPrometheus();
    }, STARTUP_MS);

    afterEach(async () => {
      await Promise.allSettled(clients.map((client) => client.close()));
      await Promise.allSettled(servers.map((server) => server.close()));
      await Promise.allSettled(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
      clients = [];
      servers = [];
      dirs = [];
    });

    afterAll(async () => {
      await prometheus?.close();
    });

    /** A plain-Prometheus local server, as `npm start` runs it, with a fresh session directory. */
    async function local(extra: Record<string, string> = {}) {
      if (!prometheus) throw new Error("Prometheus did not start");
      const sessionDir = await mkdtemp(join(tmpdir(), "restart-sessions-"));
      dirs.push(sessionDir);
      const env = {
        PROMETHEUS_URL: prometheus.url,
        PROMETHEUS_AUTH: "none",
        SESSION_DIR: sessionDir,
        LOG_LEVEL: "WARN",
        ...extra,
      };
      const server = await startOffline(env);
      servers.push(server);
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
      const client = new Client({ name: "e2e-restart", version: "1.0.0" });
      clients.push(client);
      await client.connect(transport);
      /** Stops the server and starts another on the same address with the same environment. */
      const restart = async () => {
        const current = servers.at(-1) as RunningOffline;
        await current.close();
        servers.push(await startOffline(env, current.ports));
      };
      return { sessionDir, transport, client, restart };
    }

    const count = async (client: Client) =>
      (await client.callTool({ name: "ExecuteQuery", arguments: QUERY })) as Called;

    it(
      "the default store (file, under SESSION_DIR): the same client, same session id, same answer after the restart",
      async () => {
        const { sessionDir, transport, client, restart } = await local();
        const sessionId = transport.sessionId;
        expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

        const before = await count(client);
        expect(before.isError, JSON.stringify(before)).toBeFalsy();
        expect(before.structuredContent?.resultType).toBe("vector");
        expect(before.structuredContent?.result).toMatchObject([
          { metric: {}, value: [DATASET.start + 900, "1"] },
        ]);

        // The session is a file in SESSION_DIR, put there by the default store (SESSION_STORE is not set).
        const file = join(sessionDir, `${sessionId}.json`);
        expect(existsSync(file), `no ${file}; SESSION_DIR holds ${await readdir(sessionDir)}`).toBe(true);
        expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ sessionId });

        await restart();

        // No new initialize: the same client object and transport, whose session header the new process honours.
        const after = await count(client);
        expect(after.isError, JSON.stringify(after)).toBeFalsy();
        expect(after.structuredContent).toStrictEqual(before.structuredContent);
        expect(after.content).toStrictEqual(before.content);
        expect(transport.sessionId).toBe(sessionId);
        // The plain-Prometheus listing still holds in the rebuilt session.
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).not.toContain("GetAvailableWorkspaces");
      },
      3 * STARTUP_MS,
    );

    it(
      "the control, SESSION_STORE=memory: after the restart the same client's next call fails with 404 Session not found",
      async () => {
        const { sessionDir, transport, client, restart } = await local({ SESSION_STORE: "memory" });
        const sessionId = transport.sessionId;
        expect(sessionId).toBeTruthy();
        const before = await count(client);
        expect(before.isError, JSON.stringify(before)).toBeFalsy();
        expect(await readdir(sessionDir)).toStrictEqual([]);

        await restart();

        const failed = await count(client).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
        expect("error" in failed, `the call was served: ${JSON.stringify(failed)}`).toBe(true);
        const { error } = failed as { error: unknown };
        // The SDK v1 client reports the HTTP status as the error's code, and the body as its message.
        expect(error).toBeInstanceOf(StreamableHTTPError);
        expect((error as StreamableHTTPError).code).toBe(404);
        expect((error as StreamableHTTPError).message).toContain(
          '"code":-32001,"message":"Session not found"',
        );
        expect(transport.sessionId).toBe(sessionId);
      },
      3 * STARTUP_MS,
    );
  },
);
