import { describe, expect, it } from "vitest";
import { EVENT_FORMATS, lambdaContext } from "../support/events.js";
import { callHttp, type Handler, JSON_HEADERS, makeHandler } from "../support/handler.js";

// A numeric id JSON numbers cannot carry exactly (beyond 2^53 - 1 in magnitude) has already been
// rounded by JSON.parse when the server sees it (9007199254740993 reads as 9007199254740992; a direct
// invocation's payload even arrives parsed). Echoing the rounded number would give two requests one
// reply id; such a request is answered as JSON-RPC answers an id it cannot read: -32600 with id null,
// the same over HTTP, in a batch, for a direct invocation and on the 2026-07-28 path.

const UNREADABLE =
  /^Invalid Request: "id" must be a string or an integer, not a number beyond 9007199254740991 \(2\^53 - 1\) in magnitude, which cannot be read exactly: send such an id as a string$/;

/** The batch of the report: two ids past 2^53 that JSON.parse reads as one number, and the largest safe one. */
const REPRODUCTION =
  '[{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"},' +
  '{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"},' +
  '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}]';

const handler: Handler = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });

const postRaw = (body: string, headers: Record<string, string> = JSON_HEADERS, format = "v2" as const) =>
  callHttp(handler, { method: "POST", path: "/mcp", headers, body }, format);

interface Reply {
  jsonrpc: "2.0";
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** Two replies never share an id, null aside (null says the id could not be read). */
function expectNoSharedIds(replies: Reply[]): void {
  const ids = replies.map((reply) => reply.id).filter((id) => id !== null);
  expect(new Set(ids).size).toBe(ids.length);
}

function expectUnreadable(reply: Reply | undefined): void {
  expect(reply).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  expect(reply?.error?.message).toMatch(UNREADABLE);
}

describe("request ids beyond 2^53", () => {
  it.each(EVENT_FORMATS)(
    "the reproduction batch (%s) gets no two replies with one id: the unreadable ids are -32600 with id null",
    async (format) => {
      const result = await postRaw(REPRODUCTION, JSON_HEADERS, format as "v2");
      expect(result.statusCode).toBe(200);
      const replies = JSON.parse(result.body) as Reply[];
      expect(replies).toHaveLength(3);
      expectUnreadable(replies[0]);
      expectUnreadable(replies[1]);
      expect(replies[2]).toStrictEqual({ jsonrpc: "2.0", id: 9007199254740991, result: {} });
      // The largest safe id comes back as the very text sent.
      expect(result.body).toContain('"id":9007199254740991,');
      expect(result.body).not.toContain("9007199254740992");
      expectNoSharedIds(replies);
    },
  );

  it.each([
    ["2^53 + 1", "9007199254740993"],
    ["-(2^53 + 1)", "-9007199254740993"],
    ["2^53", "9007199254740992"],
    ["a 30-digit integer", "123456789012345678901234567890"],
    ["an exponent form", "1e300"],
    ["a number JSON.parse reads as Infinity", "1e400"],
  ])("a single request whose id is %s is 400 -32600 with id null", async (_name, idText) => {
    const result = await postRaw(`{"jsonrpc":"2.0","id":${idText},"method":"ping"}`);
    expect(result.statusCode).toBe(400);
    expectUnreadable(JSON.parse(result.body) as Reply);
  });

  it("safe integers up to 2^53 - 1 either way, and any string, are still echoed exactly", async () => {
    for (const idText of ["9007199254740991", "-9007199254740991", "0", '"9007199254740993"']) {
      const result = await postRaw(`{"jsonrpc":"2.0","id":${idText},"method":"ping"}`);
      expect(result.statusCode).toBe(200);
      expect(result.body).toBe(`{"jsonrpc":"2.0","id":${idText},"result":{}}`);
    }
  });

  it("a client's response with such an id is refused the same way (it cannot name the request it answers)", async () => {
    const response = await postRaw('{"jsonrpc":"2.0","id":9007199254740993,"result":{}}');
    expect(response.statusCode).toBe(400);
    expectUnreadable(JSON.parse(response.body) as Reply);
    // One with a safe id is still accepted, and nothing is answered.
    expect((await postRaw('{"jsonrpc":"2.0","id":9007199254740991,"result":{}}')).statusCode).toBe(202);
  });

  it("a direct invocation (its payload arrives parsed, already rounded) is answered the same", async () => {
    const invoke = (payload: unknown) => handler(payload, lambdaContext());
    const replies = (await invoke(JSON.parse(REPRODUCTION))) as Reply[];
    expect(replies).toHaveLength(3);
    expectUnreadable(replies[0]);
    expectUnreadable(replies[1]);
    expect(replies[2]).toStrictEqual({ jsonrpc: "2.0", id: 9007199254740991, result: {} });
    expectNoSharedIds(replies);
    expectUnreadable((await invoke({ jsonrpc: "2.0", id: 2 ** 60, method: "tools/list" })) as Reply);
  });

  it("a 2026-07-28 request with such an id is 400 -32600 with id null, over HTTP and invoked directly", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const body = `{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list","params":{"_meta":${JSON.stringify(meta)}}}`;
    const result = await postRaw(body, {
      ...JSON_HEADERS,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    });
    expect(result.statusCode).toBe(400);
    expectUnreadable(JSON.parse(result.body) as Reply);
    expectUnreadable((await handler(JSON.parse(body), lambdaContext())) as Reply);

    // The same request with a safe id is served.
    const served = await postRaw(body.replace("9007199254740993", "9007199254740991"), {
      ...JSON_HEADERS,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    });
    expect(served.statusCode).toBe(200);
    expect(JSON.parse(served.body)).toMatchObject({
      id: 9007199254740991,
      result: { tools: expect.any(Array) },
    });
  });
});
