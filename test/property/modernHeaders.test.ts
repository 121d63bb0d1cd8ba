import { fc, test } from "@fast-check/vitest";
import { beforeAll, describe, expect } from "vitest";
import { EVENT_FORMATS, type EventFormat } from "../support/events.js";
import { callHttp, type Handler, JSON_HEADERS, makeHandler } from "../support/handler.js";

// For generated 2026-07-28 requests and generated headers, the answer is 400 -32020 (HeaderMismatch)
// exactly when a standard header disagrees with the body: MCP-Protocol-Version with the _meta version,
// Mcp-Method with the method, Mcp-Name (tools/call) with the tool name, once decoded.

const MODERN = "2026-07-28";
const SENTINEL = /^=\?base64\?(.*)\?=$/;

let handler: Handler;
beforeAll(() => {
  handler = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });
});

const base64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

/** What a header says, read the way the spec says (OWS trimmed, sentinel decoded), by a route of our own. */
function decoded(value: string | undefined, sentinel: boolean): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.replace(/^[ \t]+|[ \t]+$/g, "");
  if (!/^[\x20-\x7E\t]*$/.test(trimmed)) return undefined;
  const match = sentinel ? SENTINEL.exec(trimmed) : null;
  if (!match) return trimmed;
  const encoded = match[1] as string;
  const bytes = Buffer.from(encoded, "base64");
  // Only canonical base64 of valid UTF-8 is a value: re-encoding must give back what was sent.
  if (bytes.toString("base64") !== encoded) return undefined;
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : undefined;
}

const toolName = fc.oneof(
  fc.constantFrom("GetServerInfo", "ExecuteQuery", "ListMetrics", "no_such_tool"),
  fc.constantFrom(
    " GetServerInfo",
    "\ufeffGetServerInfo",
    "Wetter für Köln",
    "=?base64?R2V0?=",
    "a\tb",
    "名前",
    "x".repeat(200),
  ),
  fc.string({ maxLength: 12 }),
);

/** A header for a value: as an honest client sends it, or one of the ways it goes wrong. */
function headerFor(value: string, others: fc.Arbitrary<string>): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(value) },
    { weight: 3, arbitrary: fc.constant(base64(value)) },
    { weight: 1, arbitrary: fc.constant(`  ${value}\t`) },
    { weight: 1, arbitrary: fc.constant(value.toUpperCase()) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: others },
    { weight: 1, arbitrary: others.map(base64) },
    // Broken encodings of the very value: unpadded, a character outside base64, bytes that are not UTF-8.
    {
      weight: 1,
      arbitrary: fc.constant(`=?base64?${Buffer.from(value).toString("base64").replace(/=+$/, "")}?=`),
    },
    { weight: 1, arbitrary: fc.constant(`=?base64?$${Buffer.from(value).toString("base64")}?=`) },
    { weight: 1, arbitrary: fc.constantFrom("=?base64?@@@?=", "=?base64?/w==?=") },
  );
}

const scenario = fc
  .record({
    format: fc.constantFrom<EventFormat>(...EVENT_FORMATS),
    method: fc.constantFrom("server/discover", "tools/list", "tools/call"),
    name: toolName,
  })
  .chain(({ format, method, name }) =>
    fc.record({
      format: fc.constant(format),
      method: fc.constant(method),
      name: fc.constant(name),
      versionHeader: headerFor(MODERN, fc.constantFrom("2025-11-25", "2099-01-01", "2026-07-29", "")),
      methodHeader: headerFor(
        method,
        fc.constantFrom("tools/list", "tools/call", "prompts/list", "server/discover"),
      ),
      nameHeader: headerFor(name, toolName),
    }),
  );

describe("2026-07-28 header validation", () => {
  test.prop([scenario], { numRuns: 400 })(
    "400 -32020 exactly when a standard header disagrees with the body",
    async ({ format, method, name, versionHeader, methodHeader, nameHeader }) => {
      const params: Record<string, unknown> = {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      };
      if (method === "tools/call") Object.assign(params, { name, arguments: {} });
      const headers: Record<string, string> = { ...JSON_HEADERS };
      if (versionHeader !== undefined) headers["mcp-protocol-version"] = versionHeader;
      if (methodHeader !== undefined) headers["mcp-method"] = methodHeader;
      if (nameHeader !== undefined) headers["mcp-name"] = nameHeader;
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
      const result = await callHttp(handler, { method: "POST", path: "/mcp", headers, body }, format);

      const disagrees =
        decoded(versionHeader, false) !== MODERN ||
        decoded(methodHeader, false) !== method ||
        (method === "tools/call" && decoded(nameHeader, true) !== name);
      const reply = JSON.parse(result.body) as { error?: { code: number } };
      if (disagrees) {
        expect(result.statusCode).toBe(400);
        expect(reply.error?.code).toBe(-32020);
      } else {
        expect(reply.error?.code).not.toBe(-32020);
        expect(result.statusCode).toBe(200);
      }
    },
  );
});
