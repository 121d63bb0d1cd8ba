import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Bridge } from "../../src/bridge/bridge.js";
import { createMcpServer } from "../../src/server.js";
import { SessionManager, type SessionManagerOptions } from "../../src/sessions/manager.js";
import type { SessionStore } from "../../src/sessions/store.js";
import { LOCAL_SETTINGS } from "../support/toolCall.js";

/**
 * A container as the session layer sees it: its own SessionManager over a (possibly shared) store,
 * building real MCP servers, and the list of servers it built.
 */
export function sessionContainer(
  store: SessionStore,
  options: Partial<Omit<SessionManagerOptions, "store" | "openBridge">> = {},
): { manager: SessionManager; servers: McpServer[] } {
  const servers: McpServer[] = [];
  const manager = new SessionManager({
    ttlSeconds: 600,
    ...options,
    store,
    openBridge: (state) => {
      const server = createMcpServer({
        settings: LOCAL_SETTINGS,
        toolFailuresAsErrors: false,
        state,
        onFault: () => undefined,
      });
      servers.push(server);
      return Bridge.attach(server);
    },
  });
  return { manager, servers };
}
