// The MCP server of a bridge: tools/list, tools/call (toolCall.ts) and the view's resources, each handler
// behind a guard that logs a fault; its options come from serverOptions.ts.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import * as z from "zod";
import packageJson from "../../package.json" with { type: "json" };
import { cut } from "../protocol/echo.js";
import { constantResult } from "../protocol/jsonrpc.js";
import { inlineSizeMeta, resultBytesCap } from "../results/inlineSize.js";
import { RANGE_VIEW_RESOURCE, RANGE_VIEW_URI, VIEWS_CAPABILITY, viewMetaOf } from "../views/rangeView.js";
import { readRangeView } from "../views/resources.js";
import type { ForwardedRequests } from "./bridge/bridge.js";
import { type Extra, RpcError } from "./rpcError.js";
import type { ServerOptions } from "./serverOptions.js";
import { answerToolCall } from "./toolCall.js";
import { describeTool } from "./toolSchemas.js";

export const SERVER_NAME = "prometheus-mcp-lambda";
export const SERVER_VERSION: string = packageJson.version;

/** What this server offers, in every protocol revision: tools, whose list changes only with a deploy. */
export const TOOLS_CAPABILITY = { tools: { listChanged: false } };

/**
 * Builds one MCP server for a bridge; everything that can be shared between servers is built once, here.
 * The SDK's low-level Server: every handler here is registered on it directly, and McpServer's own
 * registries (tools, prompts, resources from zod schemas) would only add what it imports at a cold
 * start (zod v3, zod-to-json-schema; bench case sdkFloor).
 */
export type McpServerFactory = (forwarded: ForwardedRequests) => Server;

export function mcpServerFactory(options: ServerOptions): McpServerFactory {
  const validator = lazyAjvValidator();
  const toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
  let toolList: ListToolsResult | undefined;
  // Tool schemas are converted to JSON Schema once, on the first tools/list.
  const listTools = (): ListToolsResult => {
    toolList ??= constantResult({
      tools: options.tools.map((tool) => {
        const described = describeTool(tool, options.declareNumbers);
        const meta = {
          ...(options.views && tool.view !== undefined ? viewMetaOf(tool.view) : {}),
          ...inlineSizeMeta(resultBytesCap(options.maxResultBytes)),
        };
        return Object.keys(meta).length > 0 ? { ...described, _meta: meta } : described;
      }),
    });
    return toolList;
  };

  return (forwarded) => {
    const server = new Server(
      { name: SERVER_NAME, version: SERVER_VERSION },
      { capabilities: { logging: {} }, instructions: options.instructions, jsonSchemaValidator: validator },
    );
    const guarded = guardFor(options, forwarded);
    server.registerCapabilities(TOOLS_CAPABILITY);
    const checked = forwarded.paramsChecked ? routedBy : <S>(schema: S) => schema;
    server.setRequestHandler(
      checked(ListToolsRequestSchema),
      guarded("tools/list", () => listTools()),
    );
    server.setRequestHandler(
      checked(CallToolRequestSchema),
      guarded("tools/call", (request: z.output<typeof CallToolRequestSchema>, extra) =>
        answerToolCall(request, extra, toolsByName, forwarded, options),
      ),
    );
    if (options.views) serveViews(server, guarded);
    return server;
  };
}

/**
 * The schema a handler is registered with when its requests' params were checked before they were
 * forwarded (src/mcp/bridge/params.ts, whose -32602 names what is wrong): the method alone, which the SDK
 * routes on. The SDK parses every request with the schema its handler was registered with; given the
 * method's full schema, it would check the same params a second time (bench case warm-tools-call).
 * Its output type stays the full schema's, which the params were checked against.
 */
function routedBy<S extends { shape: { method: z.ZodLiteral<string> } }>(schema: S): S {
  return z.looseObject({ method: schema.shape.method }) as unknown as S;
}

/**
 * The MCP Apps view as a resource: listed, read by its `ui://` URI; any other URI is not found (-32602
 * with the URI in `data`, as protocol revision 2026-07-28 has it; the 2025 revisions name no code).
 * No templates, but asking for them is no error.
 */
function serveViews(server: Server, guarded: ReturnType<typeof guardFor>): void {
  server.registerCapabilities(VIEWS_CAPABILITY);
  server.setRequestHandler(
    ListResourcesRequestSchema,
    guarded("resources/list", () => ({ resources: [RANGE_VIEW_RESOURCE] })),
  );
  server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    guarded("resources/templates/list", () => ({ resourceTemplates: [] })),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    guarded("resources/read", (request: z.output<typeof ReadResourceRequestSchema>) => {
      const { uri } = request.params;
      if (uri !== RANGE_VIEW_URI)
        throw new RpcError(ErrorCode.InvalidParams, `Resource not found: ${cut(uri)}`, { uri });
      return readRangeView();
    }),
  );
}

/**
 * One validator for every server, which builds Ajv only when the SDK first validates against a JSON Schema
 * (only elicitation answers, never asked for here): building Ajv is a visible part of a cold start (bench
 * case cold-start).
 */
function lazyAjvValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return {
    getValidator: (schema) => {
      ajv ??= new AjvJsonSchemaValidator();
      return ajv.getValidator(schema);
    },
  };
}

/**
 * Wraps our handlers only (not the SDK's own): a fault is logged and its request answered as a fault by the
 * bridge; an RpcError is answered as it is.
 */
function guardFor(options: ServerOptions, forwarded: ForwardedRequests) {
  return <R, T>(method: string, handle: (request: R, extra: Extra) => T | Promise<T>) =>
    async (request: R, extra: Extra): Promise<T> => {
      try {
        return await handle(request, extra);
      } catch (error) {
        if (error instanceof RpcError) throw error;
        options.onFault(error, method, forwarded.contextOf(extra.requestId)?.invocation);
        forwarded.fault(extra.requestId);
        throw new Error("Internal error");
      }
    };
}
