import { mkdir, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { countPerMessageKind, type MessageKind, type ValidationCount } from "../support/validations.js";

/**
 * How often an everyday message is validated on its way to the McpServer, through the real handler.
 * Each of our checks runs once a message; beside them run the SDK's checks no public API can skip: its
 * Protocol recognises every message it receives against JSONRPCRequestSchema (after two response
 * probes it fails), its Server checks every tools/call against CallToolRequestSchema, and its own
 * initialize handler parses InitializeRequestSchema. The SDK no longer parses the params of tools/list
 * and tools/call in its handler slot a second time (src/mcp/server.ts routedBy).
 */
describe("validations per message", () => {
  let counted: Record<MessageKind, ValidationCount & { status: number; body: string }>;
  beforeAll(async () => {
    counted = await countPerMessageKind();
  }, 60_000);

  // What `npm run house` prints as "validations per message": ours and the SDK's, by message kind.
  afterAll(async () => {
    const bySite = Object.fromEntries(
      Object.entries(counted).map(([kind, count]) => [
        kind,
        { message: count.message, params: count.params, arguments: count.arguments, bySite: count.bySite },
      ]),
    );
    await mkdir(new URL("../../.tmp/", import.meta.url), { recursive: true });
    await writeFile(
      new URL("../../.tmp/validations-per-message.json", import.meta.url),
      `${JSON.stringify(bySite, null, 1)}\n`,
    );
  });

  test.each(["initialize", "tools/list", "tools/call"] as const)("%s is answered, not refused", (kind) => {
    expect(counted[kind].status).toBe(200);
    expect(JSON.parse(counted[kind].body)).toHaveProperty("result");
  });

  test.each(["initialize", "tools/list", "tools/call"] as const)(
    "%s: our classification runs once, and the SDK recognises the message once",
    (kind) => {
      expect(counted[kind].bySite["ours:message"]).toBe(1);
      expect(counted[kind].bySite["sdk:JSONRPCRequestSchema"]).toBe(1);
      expect(counted[kind].message).toBe(2);
    },
  );

  test("tools/list: its params are validated once (ours), the SDK's handler slot only routes", () => {
    expect(counted["tools/list"].params).toBe(1);
    expect(counted["tools/list"].bySite["ours:params"]).toBe(1);
  });

  test("tools/call: params ours and the SDK Server's (which always runs), arguments once (ours)", () => {
    const call = counted["tools/call"];
    expect(call.bySite["ours:params"]).toBe(1);
    expect(call.bySite["sdk:Server tools/call CallToolRequestSchema"]).toBe(1);
    expect(call.bySite["sdk:handler slot CallToolRequestSchema"]).toBeUndefined();
    expect(call.params).toBe(2);
    expect(call.arguments).toBe(1);
    expect(call.bySite["ours:arguments"]).toBe(1);
  });

  test("initialize: params ours (the SDK's schema, for a readable -32602) and the SDK's own handler's", () => {
    const initialize = counted.initialize;
    expect(initialize.bySite["sdk:InitializeRequestSchema"]).toBe(1);
    expect(initialize.bySite["sdk:handler slot InitializeRequestSchema"]).toBe(1);
    expect(initialize.params).toBe(2);
  });
});
