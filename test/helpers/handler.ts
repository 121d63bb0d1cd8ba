import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { vi } from "vitest";
import { APP_SETTINGS, RUNTIME_MARKERS } from "./configVariables.js";
import { type EventFormat, type HttpCall, httpEvent, lambdaContext } from "./events.js";

export interface HttpResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/** Imports a fresh copy of the handler module with the given environment (config is read at import). */
export async function loadHandler(env: Record<string, string> = {}): Promise<Handler> {
  vi.resetModules();
  for (const name of [...APP_SETTINGS, ...RUNTIME_MARKERS]) delete process.env[name];
  Object.assign(process.env, { LOG_LEVEL: "SILENT", ...env });
  const module = await import("../../src/handler.js");
  return module.handler as unknown as Handler;
}

export async function callHttp(
  handler: Handler,
  call: HttpCall,
  format: EventFormat = "v2",
  remainingMs = 30_000,
): Promise<HttpResult> {
  return (await handler(httpEvent(format, call), lambdaContext(remainingMs))) as HttpResult;
}

export const JSON_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

export async function postMcp(
  handler: Handler,
  body: unknown,
  format: EventFormat = "v2",
  headers: Record<string, string> = JSON_HEADERS,
): Promise<HttpResult> {
  return callHttp(handler, { method: "POST", path: "/mcp", headers, body: JSON.stringify(body) }, format);
}

export function header(result: HttpResult, name: string): string | undefined {
  const match = Object.keys(result.headers).find((key) => key.toLowerCase() === name.toLowerCase());
  return match === undefined ? undefined : result.headers[match];
}

/** A fresh handler module (a new container) that also records every MCP server it builds. */
export async function loadHandlerCapturingServers(
  env: Record<string, string> = {},
): Promise<{ handler: Handler; servers: McpServer[] }> {
  const servers: McpServer[] = [];
  vi.resetModules();
  vi.doMock("../../src/server.js", async (importOriginal) => {
    const real = await importOriginal<typeof import("../../src/server.js")>();
    return {
      ...real,
      createMcpServer: (options: Parameters<typeof real.createMcpServer>[0]) => {
        const server = real.createMcpServer(options);
        servers.push(server);
        return server;
      },
    };
  });
  try {
    return { handler: await loadHandler(env), servers };
  } finally {
    vi.doUnmock("../../src/server.js");
  }
}
