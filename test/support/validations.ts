import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import * as sdkTypes from "@modelcontextprotocol/sdk/types.js";
import { type InboundCheck, inboundChecks } from "../../src/protocol/inboundChecks.js";
import { type Handler, makeHandler, postMcp } from "./handler.js";

/**
 * How often one inbound message was validated on its way to the McpServer, layer by layer: ours (the
 * checks in src/ tell src/protocol/inboundChecks.ts) and the SDK's that public APIs let us see (the
 * `safeParse`/`parse` methods of the schemas `@modelcontextprotocol/sdk/types.js` exports, which its
 * Protocol calls on every message it receives, and the schema each request handler is registered
 * with, which the SDK parses every request of its method with before the handler runs). One more check
 * no public API shows is counted where it is known to run: the SDK's Server checks every tools/call
 * against CallToolRequestSchema before the handler (sdk dist/esm/server/index.js, setRequestHandler).
 */
export interface ValidationCount {
  /** The JSON-RPC message against its kind's schema: our classification, the SDK's `isJSONRPCRequest`. */
  message: number;
  /** Its method's params against the method's request schema, ours or the SDK's. */
  params: number;
  /** A tool's arguments against the tool's input schema. */
  arguments: number;
  /** The SDK's "is it a response?" probes that the message fails (kind recognition, not validation). */
  kindProbes: number;
  /** Every check above, by who ran it and against what ("ours:message", "sdk:JSONRPCRequestSchema"…). */
  bySite: Record<string, number>;
}

/** The largest of the message, params and arguments counts: 1 when each layer is validated once. */
export function validationsPerMessage(count: ValidationCount): number {
  return Math.max(count.message, count.params, count.arguments);
}

const PARSE_METHODS = ["safeParse", "parse", "safeParseAsync", "parseAsync"] as const;
const RESPONSE_SCHEMAS = new Set(["JSONRPCResultResponseSchema", "JSONRPCErrorResponseSchema"]);
const MESSAGE_SCHEMAS = new Set([
  "JSONRPCRequestSchema",
  "JSONRPCNotificationSchema",
  "JSONRPCMessageSchema",
]);

type Parser = Record<(typeof PARSE_METHODS)[number], (...args: unknown[]) => unknown>;

function isSchema(value: unknown): value is Parser {
  return typeof value === "object" && value !== null && typeof (value as Parser).safeParse === "function";
}

type Registered = (schema: unknown, handler: (...args: unknown[]) => unknown) => void;

let counter: ((site: string, layer: "params") => void) | undefined;

function schemaName(schema: unknown): string | undefined {
  return Object.entries(sdkTypes as Record<string, unknown>).find(([, value]) => value === schema)?.[0];
}

function methodOf(schema: unknown): unknown {
  return (schema as { shape?: { method?: { value?: unknown } } }).shape?.method?.value;
}

/**
 * Counts, from now until the returned function is called, the SDK's parse of each request with the
 * schema its handler was registered with (servers built meanwhile); a schema of ours that names the
 * method alone (src/mcp/server.ts routedBy) is routing, not a validation.
 */
export function watchRegistrations(): () => void {
  const prototype = Protocol.prototype as unknown as { setRequestHandler: Registered };
  const original = prototype.setRequestHandler;
  prototype.setRequestHandler = function (this: unknown, schema, handler) {
    const name = schemaName(schema);
    const serverChecks = methodOf(schema) === "tools/call";
    const counted = (...args: unknown[]) => {
      if (name !== undefined) counter?.(`sdk:handler slot ${name}`, "params");
      if (serverChecks) counter?.("sdk:Server tools/call CallToolRequestSchema", "params");
      return handler(...args);
    };
    return original.call(this, schema, counted);
  };
  return () => {
    prototype.setRequestHandler = original;
  };
}

/**
 * Runs `send` with every validation counted, and restores everything after: our checks through
 * their listener, the SDK's through its exported schemas' parse methods (wrapped for the run).
 */
export async function countValidations(send: () => Promise<unknown>): Promise<ValidationCount> {
  const count: ValidationCount = { message: 0, params: 0, arguments: 0, kindProbes: 0, bySite: {} };
  const seen = (site: string, layer: InboundCheck | "kindProbes") => {
    count.bySite[site] = (count.bySite[site] ?? 0) + 1;
    count[layer] += 1;
  };
  const restore: Array<() => void> = [];
  for (const [name, schema] of Object.entries(sdkTypes as Record<string, unknown>)) {
    if (!name.endsWith("Schema") || !isSchema(schema)) continue;
    const layer = RESPONSE_SCHEMAS.has(name)
      ? "kindProbes"
      : MESSAGE_SCHEMAS.has(name)
        ? "message"
        : "params";
    // Only inbound requests and notifications count: the schemas of results are not the message's.
    if (layer === "params" && !name.endsWith("RequestSchema") && !name.endsWith("NotificationSchema"))
      continue;
    for (const method of PARSE_METHODS) {
      const original = schema[method];
      schema[method] = (...args: unknown[]) => {
        seen(`sdk:${name}`, layer);
        return original.apply(schema, args);
      };
      restore.push(() => {
        schema[method] = original;
      });
    }
  }
  inboundChecks.listener = (check) => seen(`ours:${check}`, check);
  counter = seen;
  try {
    await send();
  } finally {
    inboundChecks.listener = undefined;
    counter = undefined;
    for (const undo of restore) undo();
  }
  return count;
}

/** The messages whose validations `countPerMessageKind` counts: a legacy client's everyday requests. */
export const EVERYDAY_MESSAGES = {
  initialize: {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "count", version: "1" } },
  },
  "tools/list": { jsonrpc: "2.0", id: 2, method: "tools/list" },
  "tools/call": {
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "GetServerInfo", arguments: {} },
  },
} as const;

export type MessageKind = keyof typeof EVERYDAY_MESSAGES;

/**
 * Each everyday message sent once, after one warm-up of each (so nothing built on first use is
 * counted), through a real handler (`makeHandler` unless given), with its validations counted.
 */
export async function countPerMessageKind(
  makeOne: () => Handler = () => makeHandler(),
): Promise<Record<MessageKind, ValidationCount & { status: number; body: string }>> {
  const unwatch = watchRegistrations();
  try {
    return await countEach(makeOne());
  } finally {
    unwatch();
  }
}

async function countEach(
  handler: Handler,
): Promise<Record<MessageKind, ValidationCount & { status: number; body: string }>> {
  const counted = {} as Record<MessageKind, ValidationCount & { status: number; body: string }>;
  for (const [kind, message] of Object.entries(EVERYDAY_MESSAGES) as Array<[MessageKind, unknown]>) {
    await postMcp(handler, message);
    let answer = { statusCode: 0, body: "" };
    const count = await countValidations(async () => {
      answer = await postMcp(handler, message);
    });
    counted[kind] = { ...count, status: answer.statusCode, body: answer.body };
  }
  return counted;
}
