import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describeIssues } from "../../errors.js";
import { hasEverydayParams } from "../../protocol/everyday.js";
import { checking } from "../../protocol/inboundChecks.js";
import {
  ErrorCode,
  errorReply,
  type JSONRPCErrorResponse,
  type JSONRPCRequest,
} from "../../protocol/jsonrpc.js";

/**
 * The SDK's own request schemas for the methods an MCP server here answers. The SDK checks a request
 * against them only inside its handler wrapper, where a mismatch becomes `-32603` with a raw validation
 * dump; checked here first, the caller gets `-32602` with a readable message instead.
 */
const REQUEST_SCHEMAS = new Map(
  [
    InitializeRequestSchema,
    PingRequestSchema,
    SetLevelRequestSchema,
    ListToolsRequestSchema,
    CallToolRequestSchema,
  ].map((schema) => [schema.shape.method.value as string, schema]),
);

/** `-32602` for a request whose params its method's schema refuses; undefined when they are fine. */
export function invalidParams(request: JSONRPCRequest): JSONRPCErrorResponse | undefined {
  if (hasEverydayParams(request.method, request.params)) {
    checking("params");
    return undefined;
  }
  const schema = REQUEST_SCHEMAS.get(request.method);
  if (!schema) return undefined;
  const parsed = schema.safeParse(request);
  if (parsed.success) return undefined;
  return errorReply(
    request.id,
    ErrorCode.InvalidParams,
    `Invalid params for ${request.method}: ${describeIssues(parsed.error.issues)}`,
  );
}
