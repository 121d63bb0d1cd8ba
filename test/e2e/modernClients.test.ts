import { Client, type FetchLike, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORS_PREFLIGHT_HEADERS } from "../../src/http/responses.js";
import { type AmpStack, startAmpStack } from "../support/ampStack.js";
import { callEveryTool } from "../support/everyTool.js";
import { type RunningOffline, startOffline } from "../support/offline.js";
import { prometheusAvailable } from "../support/prometheus.js";
import { TOOL_INTERFACE } from "../support/toolInterface.js";

// The v2 TypeScript SDK client (@modelcontextprotocol/client), which speaks protocol revision 2026-07-28,
// against `serverless offline` with the local AMP fakes (signature-checked control plane, real
// Prometheus behind a signature-checking proxy), in its three version-negotiation modes: pinned to
// 2026-07-28, "auto" (probe with server/discover, fall back to initialize) and "legacy" (2025
// handshake). Every HTTP exchange is recorded, so the test sees what went over the wire: a modern
// client must be served statelessly (no initialize, no session) with the routing headers it sent.

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const REGION = "us-east-1"; // serverless offline sets AWS_REGION to the provider's region
const WS = "ws-cccccccc-0000-4000-8000-000000000002";

const REQUIRED = Object.fromEntries(
  Object.entries(TOOL_INTERFACE).map(([name, { required }]) => [name, [...required].sort()]),
);

type Mode = { pin: string } | "auto" | "legacy";
const MODES: { label: string; mode: Mode; version: string }[] = [
  { label: "modern pin", mode: { pin: MODERN }, version: MODERN },
  { label: "modern auto", mode: "auto", version: MODERN },
  { label: "legacy", mode: "legacy", version: LEGACY },
];

/** One HTTP request the client made and the answer it got (header names lower-case). */
interface Exchange {
  method: string;
  /** The JSON-RPC methods of the body, in order (a notification or response counts too). */
  rpc: string[];
  /** `params.name` of a tools/call. */
  toolName?: string;
  requestHeaders: Record<string, string>;
  status?: number;
  responseHeaders?: Record<string, string>;
}

/** The global fetch, logging every exchange in the order the requests were made. */
function recordingFetch(log: Exchange[]): FetchLike {
  return async (url, init) => {
    const exchange: Exchange = {
      method: init?.method ?? "GET",
      ...bodyMethods(init?.body),
      requestHeaders: Object.fromEntries(new Headers(init?.headers).entries()),
    };
    log.push(exchange);
    const response = await fetch(url, init);
    exchange.status = response.status;
    exchange.responseHeaders = Object.fromEntries(response.headers.entries());
    return response;
  };
}

function bodyMethods(body: RequestInit["body"]): Pick<Exchange, "rpc" | "toolName"> {
  if (body === undefined || body === null) return { rpc: [] };
  if (typeof body !== "string") return { rpc: ["<unreadable body>"] };
  const parsed = JSON.parse(body) as unknown;
  const messages = (Array.isArray(parsed) ? parsed : [parsed]) as {
    method?: string;
    params?: { name?: unknown };
  }[];
  const call = messages.find((message) => message.method === "tools/call");
  return {
    rpc: messages.map((message) => message.method ?? "<response>"),
    ...(typeof call?.params?.name === "string" ? { toolName: call.params.name } : {}),
  };
}

function describeRequest(exchange: Exchange): string {
  return exchange.rpc.length > 0 ? exchange.rpc.join("+") : `${exchange.method} (no body)`;
}

describe.skipIf(!prometheusAvailable())(
  "MCP v2 SDK client (@modelcontextprotocol/client): modern and legacy negotiation",
  () => {
    let stack: AmpStack;
    const servers: Record<"optional" | "required", RunningOffline | undefined> = {
      optional: undefined,
      required: undefined,
    };
    const open: Client[] = [];

    beforeAll(async () => {
      stack = await startAmpStack(REGION, [{ workspaceId: WS, alias: "e2e-modern", status: "ACTIVE" }]);
      const env = { AMP_ENDPOINT: stack.amp.url, LOG_LEVEL: "WARN" };
      [servers.optional, servers.required] = await Promise.all([
        startOffline({ ...env, SESSIONS: "optional" }),
        startOffline({ ...env, SESSIONS: "required" }),
      ]);
    }, 180_000);

    afterAll(async () => {
      await Promise.allSettled(open.map((client) => client.close()));
      await Promise.all([servers.optional?.close(), servers.required?.close()]);
      await stack?.close();
    });

    for (const sessions of ["optional", "required"] as const) {
      for (const { label, mode, version } of MODES) {
        it(`SESSIONS=${sessions}, ${label}: connect, list, call every tool`, async () => {
          const offline = servers[sessions];
          if (!offline) throw new Error("serverless offline did not start");
          const log: Exchange[] = [];
          const transport = new StreamableHTTPClientTransport(new URL(`${offline.url}/mcp`), {
            fetch: recordingFetch(log),
          });
          const client = new Client(
            { name: `e2e-${label.replace(" ", "-")}`, version: "1.0.0" },
            { versionNegotiation: { mode } },
          );
          open.push(client);
          await client.connect(transport);
          expect(client.getNegotiatedProtocolVersion()).toBe(version);

          const { tools } = await client.listTools();
          expect(
            Object.fromEntries(
              tools.map((tool) => [tool.name, [...(tool.inputSchema.required ?? [])].sort()]),
            ),
          ).toStrictEqual(REQUIRED);

          let firstResult = 0;
          const calls = await callEveryTool(
            client,
            { workspaceId: WS, region: REGION, proxy: stack.proxy },
            () => {
              firstResult = log.length;
            },
          );

          const sessionId = transport.sessionId;
          if (version === LEGACY) await transport.terminateSession();
          await client.close();

          const before = log.slice(0, firstResult);
          console.log(
            `${label} (SESSIONS=${sessions}): ${before.length} HTTP requests before the first tool result ` +
              `(${before.map(describeRequest).join(", ")}); ${log.length} in all`,
          );
          const wire = log.map((exchange) => ({
            request: `${exchange.method} ${describeRequest(exchange)}`,
            status: exchange.status,
            session: exchange.responseHeaders?.["mcp-session-id"],
          }));
          const posts = log.filter((exchange) => exchange.method === "POST");
          const rpc = posts.flatMap((exchange) => exchange.rpc);
          expect(log.every((exchange) => exchange.status !== undefined)).toBe(true);

          if (version === MODERN) {
            // Stateless: a discover probe first, no handshake, no session, each POST routed by headers.
            expect(log[0]?.method).toBe("POST");
            expect(log[0]?.rpc).toStrictEqual(["server/discover"]);
            expect(rpc).not.toContain("initialize");
            expect(rpc).not.toContain("notifications/initialized");
            expect(sessionId).toBeUndefined();
            for (const exchange of log) {
              expect(exchange.responseHeaders, JSON.stringify(wire)).not.toHaveProperty("mcp-session-id");
              expect(exchange.requestHeaders).not.toHaveProperty("mcp-session-id");
            }
            for (const exchange of posts) {
              expect(exchange.rpc).toHaveLength(1);
              expect(exchange.status, JSON.stringify(wire)).toBe(200);
              expect(exchange.requestHeaders["mcp-protocol-version"]).toBe(MODERN);
              expect(exchange.requestHeaders["mcp-method"]).toBe(exchange.rpc[0]);
              if (exchange.rpc[0] === "tools/call") {
                expect(exchange.toolName).toBeDefined();
                expect(exchange.requestHeaders["mcp-name"]).toBe(exchange.toolName);
              } else {
                expect(exchange.requestHeaders).not.toHaveProperty("mcp-name");
              }
            }
            expect(posts.filter((exchange) => exchange.rpc[0] === "tools/call")).toHaveLength(calls);
          } else {
            // The 2025 handshake: initialize first, a session id from its answer, carried from then on.
            expect(posts[0]?.rpc).toStrictEqual(["initialize"]);
            expect(rpc).toContain("notifications/initialized");
            expect(rpc).not.toContain("server/discover");
            expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
            expect(posts[0]?.responseHeaders?.["mcp-session-id"]).toBe(sessionId);
            for (const exchange of log.slice(log.indexOf(posts[0] as Exchange) + 1)) {
              expect(exchange.requestHeaders["mcp-session-id"], JSON.stringify(wire)).toBe(sessionId);
              expect(exchange.requestHeaders["mcp-protocol-version"]).toBe(LEGACY);
              expect(exchange.requestHeaders).not.toHaveProperty("mcp-method");
            }
            for (const exchange of posts.filter((post) =>
              post.rpc.some((method) => !method.startsWith("notifications/")),
            ))
              expect(exchange.responseHeaders?.["mcp-session-id"], JSON.stringify(wire)).toBe(sessionId);
            expect(log.at(-1)?.method).toBe("DELETE");
          }
        }, 60_000);
      }
    }

    it("serverless offline answers a browser's preflight as API Gateway and the function do (one CORS file)", async () => {
      const offline = servers.optional;
      if (!offline) throw new Error("serverless offline did not start");
      const response = await fetch(`${offline.url}/mcp`, {
        method: "OPTIONS",
        headers: {
          origin: "http://localhost:6274",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type,mcp-protocol-version,mcp-method,mcp-name",
        },
      });
      expect(response.status).toBe(204);
      const list = (value: string | null) => (value ?? "").split(",").map((item) => item.trim());
      for (const [name, value] of Object.entries(CORS_PREFLIGHT_HEADERS)) {
        expect(list(response.headers.get(name)), name).toStrictEqual(list(value));
      }
      expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    });
  },
);
