/**
 * What src/ outside this folder takes from the MCP SDK (v1): every other module imports the SDK through
 * here, so a move to the SDK's v2 packages changes src/mcp/ alone (docs/architecture.md, "Moving to MCP SDK v2").
 */
export type { Server } from "@modelcontextprotocol/sdk/server/index.js";
export { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
export type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
export type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResultResponse,
  MessageExtraInfo,
  RequestId,
} from "@modelcontextprotocol/sdk/types.js";
export {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
