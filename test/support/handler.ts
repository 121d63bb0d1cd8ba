import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { loadConfig } from "../../src/config/index.js";
import { createHandler, type Dependencies } from "../../src/lambda/app.js";
import { createStreamingHandler } from "../../src/lambda/streaming.js";
import { type EventFormat, type HttpCall, httpEvent, lambdaContext } from "./events.js";
import { asBuffered, installStreamingRuntime } from "./lambdaStreaming.js";
import { secretsIn } from "./testSecrets.js";

export interface HttpResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/**
 * A handler (a new container) configured by `env` alone, as the function's environment would
 * (LOG_LEVEL defaults to SILENT and METRICS to off, so tests write nothing unless they ask); the shell
 * running the tests cannot leak in.
 */
export function makeHandler(env: Record<string, string> = {}, dependencies: Dependencies = {}): Handler {
  const config = loadConfig({ LOG_LEVEL: "SILENT", METRICS: "off", ...env });
  if (ENTRY === "streaming") {
    installStreamingRuntime();
    return withoutSecrets(asBuffered(createStreamingHandler(config, dependencies) as never));
  }
  return withoutSecrets(createHandler(config, dependencies) as unknown as Handler);
}

/** The handler, failing the test whose answer holds a test credential (test/support/testSecrets.ts). */
function withoutSecrets(handler: Handler): Handler {
  return async (event, context) => {
    const answer = await handler(event, context);
    const held = secretsIn(JSON.stringify(answer) ?? "");
    if (held.length > 0)
      throw new Error(
        `An answer holds a test credential (${held.map((secret) => `${secret.slice(0, 4)}…`).join(", ")})`,
      );
    return answer;
  };
}

/**
 * Which entry the handlers of the tests are: `buffered` (src/lambda/handler.ts's createHandler), or with
 * CONTRACT_ENTRY=streaming the streaming entry (src/lambda/streaming.ts), its streamed answers read back as
 * a front door reads them: the contract suite's second run (vitest.config.ts).
 */
export const ENTRY: "buffered" | "streaming" =
  process.env.CONTRACT_ENTRY === "streaming" ? "streaming" : "buffered";

/** A handler that also records every MCP server it builds. */
export function makeHandlerCapturingServers(env: Record<string, string> = {}): {
  handler: Handler;
  servers: Server[];
} {
  const servers: Server[] = [];
  return { handler: makeHandler(env, { onServerCreated: (server) => servers.push(server) }), servers };
}

export async function callHttp(
  handler: Handler,
  call: HttpCall,
  format: EventFormat = "v2",
  remainingMs = 30_000,
  context: unknown = lambdaContext(remainingMs),
): Promise<HttpResult> {
  return (await handler(httpEvent(format, call), context)) as HttpResult;
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
