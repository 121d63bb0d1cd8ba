import { describe, expect, it } from "vitest";
import { httpEvent } from "../support/events.js";
import { JSON_HEADERS } from "../support/handler.js";
import { check, exactDecimal, idKey, parseExact, sameId } from "./oracle.js";

/**
 * The fuzz oracle's id checks, for ids beyond 2^53 (finding 7: 9007199254740993 and 9007199254740992 in
 * one batch both came back as 9007199254740992). An answer must carry an id exactly as sent, or null with
 * -32600 Invalid Request; JSON.parse alone cannot tell, so the oracle reads ids with parseExact.
 */

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function observe(body: string, answer: { status: number; body: string }, headers = JSON_HEADERS) {
  const event = httpEvent("v2", { method: "POST", path: "/mcp", headers, body });
  return check(
    {
      input: { shape: "v2", event, remainingMs: 30_000, mutated: [] },
      result: {
        statusCode: answer.status,
        headers: { "Content-Type": "application/json" },
        body: answer.body,
      },
      threw: false,
      elapsedMs: 1,
      logs: [],
    },
    { pythonCompat: false },
  );
}

const ping = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
const ok = (id: string) => `{"jsonrpc":"2.0","id":${id},"result":{}}`;
const invalid = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,"message":"Invalid Request"}}`;

describe("parseExact and idKey", () => {
  it.each([
    ["9007199254740993", "9007199254740993"],
    ["-9007199254740993", "-9007199254740993"],
    ["9007199254740993.0", "9007199254740993"],
    ["90071992547409930e-1", "9007199254740993"],
    ["1e20", "100000000000000000000"],
    ["1.5E1", "15"],
    ["0.000", "0"],
    ["-0", "0"],
    ["12.50", "12.5"],
  ])("the exact value of %s is %s", (literal, exact) => {
    expect(exactDecimal(literal)).toBe(exact);
  });

  it("keeps integers beyond 2^53 exact, anywhere but in strings, and leaves everything else as JSON.parse reads it", () => {
    const text =
      '[9007199254740993, 9007199254740992, 9007199254740991, 1e400, 1.5, "9007199254740993", {"id": -18446744073709551617}]';
    const parsed = parseExact(text) as unknown[];
    expect(parsed.slice(0, 6).map(idKey)).toStrictEqual([
      "number 9007199254740993",
      "number 9007199254740992",
      "number 9007199254740991",
      "number Infinity",
      "number 1.5",
      "string 9007199254740993",
    ]);
    expect(idKey((parsed[6] as { id: unknown }).id)).toBe("number -18446744073709551617");
    expect(parseExact('{"a":[1,2,{"b":"c\\"9007199254740993"}]}')).toStrictEqual(
      JSON.parse('{"a":[1,2,{"b":"c\\"9007199254740993"}]}'),
    );
    expect(() => parseExact("[9007199254740993,")).toThrow(SyntaxError);
  });

  it("compares ids by type and exact value, however they are spelled", () => {
    expect(sameId(parseExact("1e20"), parseExact("100000000000000000000"))).toBe(true);
    expect(sameId(parseExact("9007199254740993"), parseExact("9007199254740992"))).toBe(false);
    expect(sameId(2 ** 53, parseExact("9007199254740992"))).toBe(true);
    expect(sameId(1, parseExact("1.0"))).toBe(true);
    expect(sameId("1", 1)).toBe(false);
    expect(sameId(null, null)).toBe(true);
  });
});

describe("the oracle's id checks", () => {
  const batch = `[${ping("9007199254740993")},${ping("9007199254740992")}]`;

  it("finding 7: both ids answered as 9007199254740992 is a problem", () => {
    const problems = observe(batch, {
      status: 200,
      body: `[${ok("9007199254740992")},${ok("9007199254740992")}]`,
    });
    expect(problems.filter((problem) => problem.startsWith("correlation:"))).toStrictEqual([
      "correlation: more than 1 replies with id 9007199254740992, which 1 message(s) of the payload carry",
    ]);
  });

  it("an id answered as its neighbour is a problem", () => {
    const problems = observe(ping("9007199254740993"), { status: 200, body: ok("9007199254740992") });
    expect(problems).toContain(
      "correlation: a reply with id 9007199254740992, which no request of the payload has",
    );
  });

  it("exact echoes, or -32600 with id null, are fine", () => {
    expect(
      observe(batch, { status: 200, body: `[${ok("9007199254740993")},${ok("9007199254740992")}]` }),
    ).toStrictEqual([]);
    expect(observe(batch, { status: 200, body: `[${invalid("null")},${invalid("null")}]` })).toStrictEqual(
      [],
    );
    expect(observe(ping("1e20"), { status: 200, body: ok("100000000000000000000") })).toStrictEqual([]);
    expect(observe(ping("9007199254740993"), { status: 400, body: invalid("null") })).toStrictEqual([]);
  });

  describe("2026-07-28", () => {
    const modern = (id: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${JSON.stringify(MODERN_META)}}}`;
    const headers = { ...JSON_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };

    it("-32600 with id null, or the id echoed exactly, is what was due", () => {
      expect(
        observe(modern("9007199254740993"), { status: 400, body: invalid("null") }, headers),
      ).toStrictEqual([]);
      expect(
        observe(modern("9007199254740993"), { status: 400, body: invalid("9007199254740993") }, headers),
      ).toStrictEqual([]);
    });

    it("another id is not", () => {
      const problems = observe(
        modern("9007199254740993"),
        { status: 400, body: invalid("9007199254740992") },
        headers,
      );
      expect(
        problems.some((problem) =>
          problem.startsWith("modern: HTTP 400 -32600 where 400 -32600 for an id beyond 2^53 - 1"),
        ),
      ).toBe(true);
      expect(
        problems.some((problem) => problem.startsWith("correlation: a reply with id 9007199254740992")),
      ).toBe(true);
    });

    it("a safe id is still due exactly", () => {
      expect(
        observe(modern("9007199254740991"), { status: 400, body: invalid("null") }, headers),
      ).not.toStrictEqual([]);
    });
  });
});
