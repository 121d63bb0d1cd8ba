import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AmpStack, startAmpStack } from "../support/ampStack.js";
import { callEveryTool } from "../support/everyTool.js";
import type { FakeAmp } from "../support/fakeAmp.js";
import { type RunningOffline, startOffline } from "../support/offline.js";
import { prometheusAvailable } from "../support/prometheus.js";
import type { SigV4Proxy } from "../support/sigv4Proxy.js";
import { TOOL_INTERFACE } from "../support/toolInterface.js";

// The SDK's Client over StreamableHTTPClientTransport against `serverless offline`, for every protocol
// version we support, with sessions on and off, calling each tool against the local AMP fakes: the
// control plane (signature-checked) and a real Prometheus behind a signature-checking proxy.

const VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const;
const REGION = "us-east-1"; // serverless offline sets AWS_REGION to the provider's region
const WS = "ws-cccccccc-0000-4000-8000-000000000001";

const REQUIRED = Object.fromEntries(
  Object.entries(TOOL_INTERFACE).map(([name, { required }]) => [name, [...required].sort()]),
);

/** The SDK client always offers its latest version; this one offers the version under test instead. */
class VersionedTransport extends StreamableHTTPClientTransport {
  constructor(
    url: URL,
    private readonly version: string,
  ) {
    super(url);
  }

  override send(message: JSONRPCMessage, options?: Parameters<StreamableHTTPClientTransport["send"]>[1]) {
    if ("method" in message && message.method === "initialize" && message.params) {
      return super.send(
        { ...message, params: { ...message.params, protocolVersion: this.version } },
        options,
      );
    }
    return super.send(message, options);
  }
}

describe.skipIf(!prometheusAvailable())(
  "MCP SDK client: every protocol version, with and without sessions",
  () => {
    let proxy: SigV4Proxy;
    let amp: FakeAmp;
    let stack: AmpStack;
    const servers: Record<"sessions" | "stateless", RunningOffline | undefined> = {
      sessions: undefined,
      stateless: undefined,
    };

    beforeAll(async () => {
      stack = await startAmpStack(REGION, [{ workspaceId: WS, alias: "e2e", status: "ACTIVE" }]);
      ({ proxy, amp } = stack);
      const env = { AMP_ENDPOINT: amp.url, LOG_LEVEL: "WARN" };
      [servers.sessions, servers.stateless] = await Promise.all([
        startOffline({ ...env, SESSIONS: "optional" }),
        startOffline({ ...env, SESSIONS: "off" }),
      ]);
    }, 180_000);

    afterAll(async () => {
      await Promise.all([servers.sessions?.close(), servers.stateless?.close()]);
      await stack?.close();
    });

    for (const mode of ["sessions", "stateless"] as const) {
      for (const version of VERSIONS) {
        it(`${mode}, protocol ${version}: connect, list, call every tool, close`, async () => {
          const offline = servers[mode];
          if (!offline) throw new Error("serverless offline did not start");
          const transport = new VersionedTransport(new URL(`${offline.url}/mcp`), version);
          const client = new Client({ name: `e2e-${mode}`, version: "1.0.0" });
          await client.connect(transport);
          expect(transport.protocolVersion).toBe(version);
          if (mode === "sessions") expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
          else expect(transport.sessionId).toBeUndefined();

          const { tools } = await client.listTools();
          expect(
            Object.fromEntries(
              tools.map((tool) => [tool.name, [...(tool.inputSchema.required ?? [])].sort()]),
            ),
          ).toStrictEqual(REQUIRED);

          await callEveryTool(client, { workspaceId: WS, region: REGION, proxy });

          if (mode === "sessions") await transport.terminateSession();
          await client.close();
        }, 60_000);
      }
    }
  },
);
