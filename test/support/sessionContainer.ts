import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Bridge } from "../../src/mcp/bridge/bridge.js";
import { type McpServerFactory, mcpServerFactory } from "../../src/mcp/server.js";
import { createUpstream } from "../../src/prometheus/upstream.js";
import { SessionManager, type SessionManagerOptions } from "../../src/sessions/manager.js";
import type { SessionStore } from "../../src/sessions/store.js";
import { instructionsFor, tools } from "../../tools/index.js";
import { LOCAL_SETTINGS } from "./toolCall.js";

/** What a handler builds once for all its MCP servers (the tool list, the JSON Schema validator). */
export function localServerFactory(): McpServerFactory {
  return mcpServerFactory({
    tools,
    views: true,
    instructions: instructionsFor(tools.map((tool) => tool.name)),
    settings: LOCAL_SETTINGS,
    upstream: createUpstream(LOCAL_SETTINGS),
    toolFailuresAsErrors: false,
    pythonLayout: false,
    declareNumbers: true,
    maxResultTokens: 20_000,
    maxResultBytes: undefined,
    onFault: () => undefined,
  });
}

/**
 * A container as the session layer sees it: its own SessionManager over a (possibly shared) store,
 * building real MCP servers, and the list of servers it built.
 */
export function sessionContainer(
  store: SessionStore,
  options: Partial<Omit<SessionManagerOptions, "store" | "openBridge">> = {},
  makeServer: McpServerFactory = localServerFactory(),
): { manager: SessionManager; servers: Server[] } {
  const servers: Server[] = [];
  const manager = new SessionManager({
    ttlSeconds: 600,
    ...options,
    store,
    openBridge: () =>
      Bridge.open((forwarded) => {
        const server = makeServer(forwarded);
        servers.push(server);
        return server;
      }),
  });
  return { manager, servers };
}
