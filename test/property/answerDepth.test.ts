import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { readAnswer } from "../../src/prometheus/answerReader.js";
import {
  AnswerFormatError,
  AnswerLimitError,
  AnswerScanner,
  type AnswerScannerOptions,
  DEFAULT_MAX_DEPTH,
} from "../../src/prometheus/answerStream.js";
import { wholeAnswer } from "../support/wholeAnswer.js";

/**
 * Finding 4: a Prometheus answer nested thousands deep made JSON.stringify throw RangeError (a fault,
 * "internal error"). The scanner caps nesting (maxDepth, 64 by default), the same in the skeleton and
 * inside the streamed array's elements, counted from the top of the answer; past it, AnswerLimitError.
 */

const encoder = new TextEncoder();

/** How deep a JSON text nests arrays and objects (the top-level value's container is level 1). */
function depthOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") deepest = Math.max(deepest, ++depth);
    else if (c === "]" || c === "}") depth--;
  }
  return deepest;
}

/** A value nested `levels` deep: arrays, objects, or both in turn; with strings that look like brackets. */
function nested(levels: number, kind: "array" | "object" | "mixed"): string {
  let text = '"[{x}]"';
  for (let level = 0; level < levels; level++) {
    const array = kind === "array" || (kind === "mixed" && level % 2 === 0);
    text = array ? `[1, ${text}]` : `{"k": ${text}, "s": "}"}`;
  }
  return text;
}

/** Where the nested value goes: inside an element, beside the streamed array, in a bare array's element. */
type Place = "element" | "skeleton" | "bare" | "data-array" | "alerts";

function answerWith(value: string, place: Place): { text: string; options: AnswerScannerOptions } {
  switch (place) {
    case "element":
      return {
        text: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"2"]},{"metric":{"a":"b"},"value":[1,${value}]}]}}`,
        options: {},
      };
    case "skeleton":
      return {
        text: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"2"]}],"extra":${value}},"warnings":[]}`,
        options: {},
      };
    case "bare":
      return { text: `[{"id":"a"},${value}]`, options: { bare: true } };
    case "data-array":
      return { text: `{"status":"success","data":["up",${value}]}`, options: {} };
    case "alerts":
      return {
        text: `{"status":"success","data":{"alerts":[{"labels":{"alertname":"X"},"annotations":{"summary":${value}},"state":"firing"}]}}`,
        options: { streamedKey: "alerts" },
      };
  }
}

/** Feeds `text` in chunks cut at `cuts` (positions, in any order) and ends the scan. */
function scan(text: string, cuts: readonly number[], options: AnswerScannerOptions) {
  const bytes = encoder.encode(text);
  const points = [...new Set([0, ...cuts.map((cut) => cut % (bytes.length + 1)), bytes.length])].sort(
    (a, b) => a - b,
  );
  const elements: string[] = [];
  const scanner = new AnswerScanner((raw) => elements.push(new TextDecoder().decode(raw)), options);
  for (let at = 1; at < points.length; at++) {
    scanner.push(bytes.slice(points[at - 1], points[at]));
  }
  return { skeleton: scanner.end(), elements, bytesRead: scanner.bytesRead };
}

const place = fc.constantFrom<Place>("element", "skeleton", "bare", "data-array", "alerts");
const kind = fc.constantFrom<"array" | "object" | "mixed">("array", "object", "mixed");
const cuts = fc.array(fc.nat(), { maxLength: 8 });

describe("AnswerScanner's nesting limit (maxDepth)", () => {
  test.prop([fc.integer({ min: 0, max: 20 }), kind, place, fc.integer({ min: 1, max: 16 }), cuts], {
    numRuns: 1000,
  })(
    "an answer is read exactly when it nests at most maxDepth deep, wherever the depth is and however it is cut",
    (levels, shape, where, maxDepth, at) => {
      const { text, options } = answerWith(nested(levels, shape), where);
      const depth = depthOf(text);
      const run = () => scan(text, at, { ...options, maxDepth });
      if (depth <= maxDepth) {
        const { skeleton } = run();
        expect(skeleton).toBeDefined();
        return;
      }
      expect(run).toThrow(AnswerLimitError);
      expect(run).toThrow(`more than maxDepth (${maxDepth} levels) deep`);
    },
  );

  test.prop([fc.integer({ min: 0, max: 12 }), kind, place, cuts], { numRuns: 300 })(
    "within the limit, the elements and skeleton are what JSON.parse reads",
    (levels, shape, where, at) => {
      const { text, options } = answerWith(nested(levels, shape), where);
      const { skeleton, elements } = scan(text, at, options);
      const whole = JSON.parse(text) as unknown;
      const parsed = elements.map((element) => JSON.parse(element) as unknown);
      if (where === "bare") {
        expect(parsed).toStrictEqual(whole);
        expect(skeleton).toStrictEqual([]);
      } else if (where === "data-array") {
        expect(parsed).toStrictEqual((whole as { data: unknown }).data);
      } else {
        const data = (whole as { data: Record<string, unknown> }).data;
        const key = where === "alerts" ? "alerts" : "result";
        expect(parsed).toStrictEqual(data[key]);
        expect(skeleton).toStrictEqual({ ...(whole as object), data: { ...data, [key]: [] } });
      }
    },
  );

  it.each([
    ['{"a":1}', 1],
    ["[[]]", 2],
    ['{"data":[1,[2]]}', 3],
    ['{"data":{"result":[{"m":{}}]}}', 5],
  ])("counts %s as %i levels deep", (text, levels) => {
    expect(() => scan(text, [], { maxDepth: levels })).not.toThrow();
    expect(() => scan(text, [], { maxDepth: levels - 1 })).toThrow(AnswerLimitError);
  });

  it("an empty container at the limit is still a level", () => {
    expect(() => scan('{"data":[[]]}', [], { maxDepth: 2 })).toThrow(AnswerLimitError);
    expect(() => scan('{"data":[{}]}', [], { maxDepth: 2 })).toThrow(AnswerLimitError);
    expect(scan('{"data":["[[[", 1]}', [], { maxDepth: 2 }).elements).toStrictEqual(['"[[["', "1"]);
  });

  it("defaults to 64, and the error is an AnswerFormatError naming the limit and where", () => {
    expect(DEFAULT_MAX_DEPTH).toBe(64);
    const within = `{"data":${"[".repeat(63)}${"]".repeat(63)}}`;
    const read = scan(within, [], {});
    expect(read.skeleton).toStrictEqual({ data: [] });
    expect(read.elements).toStrictEqual([`${"[".repeat(62)}${"]".repeat(62)}`]);
    const past = `{"data":${"[".repeat(64)}${"]".repeat(64)}}`;
    let error: unknown;
    try {
      scan(past, [], {});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AnswerFormatError);
    expect(error).toBeInstanceOf(AnswerLimitError);
    expect((error as Error).message).toBe(
      "The answer nests arrays and objects more than maxDepth (64 levels) deep, at byte 71.",
    );
  });

  it.each([5_000, 100_000])(
    "an element %i deep is refused at level 65, before the rest is read, and stays refused",
    (levels) => {
      const head = '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,';
      const scanner = new AnswerScanner(() => {
        throw new Error("no element is delivered");
      });
      const deep = encoder.encode(`${head}${"[".repeat(levels)}`);
      let at = 0;
      expect(() => {
        for (; at < deep.length; at += 16) scanner.push(deep.subarray(at, at + 16));
      }).toThrow(AnswerLimitError);
      // Three levels above the result array's element, two in it: the 60th `[` of the value is the 65th.
      expect(scanner.bytesRead).toBeLessThanOrEqual(head.length + 60 + 16);
      expect(() => scanner.push(encoder.encode("]"))).toThrow(AnswerLimitError);
      expect(() => scanner.end()).toThrow(AnswerLimitError);
    },
  );

  it("real answers nest far less: a range query's native histograms and /api/v1/rules read at the default", () => {
    const histograms =
      '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"h"},"histograms":[[1700000000,{"count":"5","sum":"2.5","buckets":[[0,"0.5","1","5"]]}]]}]}}';
    const rules =
      '{"status":"success","data":{"groups":[{"name":"g","file":"f","rules":[{"name":"A","query":"up","type":"alerting","labels":{"s":"p"},"alerts":[{"labels":{"alertname":"A"},"annotations":{},"state":"firing"}]}]}]}}';
    expect(depthOf(histograms)).toBe(9);
    expect(depthOf(rules)).toBe(9);
    expect(scan(histograms, [], {}).elements).toHaveLength(1);
    expect(scan(rules, [], { streamedKey: "groups" }).elements).toHaveLength(1);
  });
});

describe("readAnswer: an answer nested too deep is a tool error naming the upstream", () => {
  const answer = (body: string) =>
    new Response(body, { status: 200, headers: { "content-type": "application/json" } });

  it.each([
    [
      "an element",
      `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,${"[".repeat(5_000)}${"]".repeat(5_000)}]}]}}`,
    ],
    [
      "the skeleton",
      `{"status":"success","data":{"resultType":"vector","result":[],"x":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}}`,
    ],
    [
      "an error envelope",
      `{"status":"error","errorType":"internal","error":${"[".repeat(5_000)}${"]".repeat(5_000)}}`,
    ],
  ])("in %s", async (_, body) => {
    const error = await readAnswer(
      answer(body),
      "Prometheus's answer at http://127.0.0.1:9090/api/v1/query",
      wholeAnswer(),
      1024 * 1024,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(
      /^Prometheus's answer at http:\/\/127\.0\.0\.1:9090\/api\/v1\/query cannot be read: the answer nests arrays and objects more than maxDepth \(64 levels\) deep, at byte \d+\.$/,
    );
  });

  it("a malformed answer is still reported as not valid JSON", async () => {
    const error = await readAnswer(
      answer('{"status":"success","data":[1 2]}'),
      "Alertmanager's answer at http://am/api/v2/silences",
      wholeAnswer(),
      1024,
    ).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(
      /^Alertmanager's answer at http:\/\/am\/api\/v2\/silences is not valid JSON: /,
    );
  });
});
