import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
  type Tool as ToolDescriptor,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import packageJson from "../package.json" with { type: "json" };
import { tools } from "../tools/index.js";
import { type Tool, type ToolCall, ToolError, type ToolSettings } from "../tools/types.js";
import { INTERNAL_ERROR, INVALID_PARAMS } from "./bridge/jsonrpc.js";

export const SERVER_NAME = "prometheus-mcp-lambda";
export const SERVER_VERSION: string = packageJson.version;

/** A tool gets this much less time than its request, so a slow Prometheus yields the tool's own timeout error. */
export const TOOL_DEADLINE_MARGIN_MS = 250;

const INSTRUCTIONS =
  "Query Amazon Managed Service for Prometheus (AMP) or a Prometheus server with PromQL. " +
  "Start with GetAvailableWorkspaces to find a workspace_id unless a Prometheus URL is configured " +
  "(GetServerInfo tells), then ListMetrics to see metric names, then ExecuteQuery (one instant) or " +
  "ExecuteRangeQuery (a time series over a range).";

/** What one MCP server instance reads at each tool call; a session's server keeps it across requests. */
export interface ServerState {
  /** Epoch ms by which the current request must be answered (updated before each request). */
  deadlineAt: number;
  /** Per-session state for tools; persisted with the session (a throwaway map without one). */
  data: Record<string, unknown>;
}

export interface ServerOptions {
  settings: ToolSettings;
  /** PYTHON_COMPAT: a failed tool call becomes a JSON-RPC `-32603 Tool execution failed: …` error. */
  toolFailuresAsErrors: boolean;
  state: ServerState;
  /** Receives errors that are not the caller's fault (they are answered `-32603 Internal error`). */
  onFault: (error: unknown, context: string) => void;
}

/** An error the SDK's Protocol answers with exactly this code and message (an McpError would prefix the message). */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function rpcError(code: number, message: string): RpcError {
  return new RpcError(code, message);
}

// One validator for every server instance: building an Ajv instance per server costs more than the server itself.
let sharedValidator: AjvJsonSchemaValidator | undefined;

export function createMcpServer(options: ServerOptions): McpServer {
  sharedValidator ??= new AjvJsonSchemaValidator();
  const mcp = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { logging: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: sharedValidator,
    },
  );
  // Declared here rather than in the options, where McpServer would install (and we would replace) its own handlers.
  mcp.server.registerCapabilities({ tools: { listChanged: false } });
  mcp.server.setRequestHandler(ListToolsRequestSchema, listTools);
  mcp.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(request.params.name, request.params.arguments, extra.signal, options),
  );
  reportParamsErrorsAsInvalidParams(mcp, options.onFault);
  return mcp;
}

let toolList: ListToolsResult | undefined;

/** Tool schemas are converted to JSON Schema once per container, not per `tools/list`. */
export function listTools(): ListToolsResult {
  toolList ??= { tools: tools.map(describeTool) };
  return toolList;
}

function describeTool(tool: Tool): ToolDescriptor {
  return {
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: withoutSchemaDialect(toJsonSchemaCompat(tool.inputSchema, { pipeStrategy: "input" })),
    outputSchema: withoutSchemaDialect(toJsonSchemaCompat(tool.outputSchema, { pipeStrategy: "output" })),
    annotations: tool.annotations,
  } as ToolDescriptor;
}

function withoutSchemaDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));

async function callTool(
  name: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
  options: ServerOptions,
): Promise<CallToolResult> {
  const tool = toolsByName.get(name);
  if (!tool) {
    throw rpcError(
      INVALID_PARAMS,
      `Unknown tool: ${name}. Available tools: ${[...toolsByName.keys()].join(", ")}`,
    );
  }
  const parsed = tool.inputSchema.safeParse(numbersAsStrings(args ?? {}));
  if (!parsed.success) {
    return toolFailure(tool.name, `Invalid arguments: ${describeIssues(parsed.error.issues)}`, options);
  }
  const call: ToolCall = {
    settings: options.settings,
    deadlineAt: options.state.deadlineAt - TOOL_DEADLINE_MARGIN_MS,
    sessionData: options.state.data,
    signal,
  };
  try {
    const result = await tool.run(parsed.data, call);
    return { content: [{ type: "text", text: JSON.stringify(result, null, 2) }], structuredContent: result };
  } catch (error) {
    if (error instanceof ToolError) return toolFailure(tool.name, error.message, options);
    options.onFault(error, `tool ${tool.name}`);
    return toolFailure(tool.name, "internal error (details are in the function's log)", options);
  }
}

/**
 * Every tool parameter is a string (the Python server's interface), but clients such as the MCP
 * Inspector CLI send numeric-looking values (a Unix time, a step in seconds) as JSON numbers.
 */
function numbersAsStrings(args: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(args).map(([name, value]) => [
    name,
    typeof value === "number" && Number.isFinite(value) ? String(value) : value,
  ]);
  return Object.fromEntries(entries);
}

function toolFailure(toolName: string, message: string, options: ServerOptions): CallToolResult {
  const text = `Error executing tool ${toolName}: ${message}`;
  if (options.toolFailuresAsErrors) throw rpcError(INTERNAL_ERROR, `Tool execution failed: ${text}`);
  return { content: [{ type: "text", text }], isError: true };
}

interface Issue {
  path: readonly PropertyKey[];
  message: string;
}

export function describeIssues(issues: readonly Issue[]): string {
  return issues
    .map((issue) =>
      issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message,
    )
    .join("; ");
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * The SDK answers a request whose params fail its schema with `-32603` and the raw validation dump,
 * and any unexpected exception with its message. Wrap every handler so the caller gets `-32602`
 * with a readable message for bad params, and a bare `-32603 Internal error` (details logged) for faults.
 */
function reportParamsErrorsAsInvalidParams(mcp: McpServer, onFault: ServerOptions["onFault"]): void {
  const handlers = (mcp.server as unknown as { _requestHandlers?: Map<string, RequestHandler> })
    ._requestHandlers;
  if (!(handlers instanceof Map)) throw new Error("MCP SDK internals changed: request handlers not found");
  for (const [method, handler] of handlers) {
    handlers.set(method, async (request, extra) => {
      try {
        return await handler(request, extra);
      } catch (error) {
        throw toRpcError(error, method, onFault);
      }
    });
  }
}

function toRpcError(error: unknown, method: string, onFault: ServerOptions["onFault"]): Error {
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (error instanceof Error && Array.isArray(issues)) {
    return rpcError(INVALID_PARAMS, `Invalid params for ${method}: ${describeIssues(issues as Issue[])}`);
  }
  if (error instanceof RpcError) return error;
  if (error instanceof McpError && error.code !== INTERNAL_ERROR) {
    return rpcError(error.code, error.message.replace(/^MCP error -?\d+: /, ""));
  }
  onFault(error, method);
  return rpcError(INTERNAL_ERROR, "Internal error");
}
