// What the MCP server's request handlers share (server.ts, toolCall.ts): the error the SDK answers as it
// is, and the type of the handlers' `extra`.

import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";

/** An error the SDK's Protocol answers with exactly this code, message and data (an McpError would prefix the message). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
