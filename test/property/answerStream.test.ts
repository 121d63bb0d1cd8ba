import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  AnswerFormatError,
  AnswerScanner,
  type AnswerScannerOptions,
} from "../../src/prometheus/answerStream.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const WHITESPACE = ["", "", "", " ", "\n", "\t", "\r\n", "  \n\t "];

/**
 * JSON text with whitespace between tokens and optional escapes, both driven by `noise` so that
 * fast-check can shrink them.
 */
class Writer {
  private k = 0;
  constructor(private readonly noise: readonly number[]) {}

  private next(): number {
    return this.noise.length === 0 ? 0 : (this.noise[this.k++ % this.noise.length] as number);
  }

  ws(): string {
    return WHITESPACE[this.next() % WHITESPACE.length] as string;
  }

  string(text: string): string {
    let out = '"';
    for (const ch of text) {
      const choice = this.next() % 6;
      if (ch === '"') out += '\\"';
      else if (ch === "\\") out += "\\\\";
      else if (ch === "/" && choice === 1) out += "\\/";
      else if ((ch.codePointAt(0) as number) < 0x20 || choice === 0) {
        // An astral character becomes its two escaped surrogates.
        for (let unit = 0; unit < ch.length; unit++) {
          out += `\\u${ch.charCodeAt(unit).toString(16).padStart(4, "0")}`;
        }
      } else out += ch;
    }
    return `${out}"`;
  }

  value(value: Json): string {
    if (typeof value === "string") return this.string(value);
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    if (Array.isArray(value)) {
      return `[${this.ws()}${value.map((item) => this.value(item)).join(`${this.ws()},${this.ws()}`)}${this.ws()}]`;
    }
    const members = Object.entries(value).map(
      ([key, item]) => `${this.string(key)}${this.ws()}:${this.ws()}${this.value(item)}`,
    );
    return `{${this.ws()}${members.join(`${this.ws()},${this.ws()}`)}${this.ws()}}`;
  }

  document(value: Json): string {
    return `${this.ws()}${this.value(value)}${this.ws()}`;
  }
}

/** Characters of strings: any code point, weighted towards those that JSON and the scanner treat specially. */
const char = fc.oneof(
  fc.constantFrom('"', "\\", "/", "\n", "[", "]", "{", "}", ",", ":", " ", "é", "€", "😀"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
);
const text = fc.string({ unit: char, maxLength: 10 });
const json = fc.jsonValue({ maxDepth: 3, stringUnit: char }) as fc.Arbitrary<Json>;
const series: fc.Arbitrary<Json> = fc.record({
  metric: fc.record({ __name__: text, job: text, instance: text, pod: text }),
  values: fc.array(fc.tuple(fc.integer({ min: 1_600_000_000, max: 1_800_000_000 }), text), { maxLength: 5 }),
});
const elements = fc.array(fc.oneof(json, series), { maxLength: 8 });
const key = fc.oneof(fc.constantFrom("status", "resultType", "warnings", "infos", "Data", "results"), text);
const extras = (reserved: string) =>
  fc.dictionary(
    key.filter((k) => k !== reserved),
    json,
    { maxKeys: 3 },
  );
const NO_RESULT = Symbol("no result");
const dataObject: fc.Arbitrary<Json> = fc
  .record({
    before: extras("result"),
    result: fc.oneof({ weight: 4, arbitrary: elements }, json, fc.constant(NO_RESULT)),
    after: extras("result"),
  })
  .map(({ before, result, after }) => ({ ...before, ...(result === NO_RESULT ? {} : { result }), ...after }));
/** Top-level objects shaped like Prometheus answers (and some that are not quite). */
const answerObject: fc.Arbitrary<Json> = fc
  .record({
    before: extras("data"),
    data: fc.oneof({ weight: 3, arbitrary: dataObject }, { weight: 3, arbitrary: elements }, json),
    after: extras("data"),
  })
  .map(({ before, data, after }) => ({ ...before, data, ...after }));
const answer = fc.oneof({ weight: 6, arbitrary: answerObject }, json);
const noise = fc.array(fc.nat(), { maxLength: 40 });
/**
 * Where to cut the bytes into chunks: every byte, right after every backslash (so that escapes
 * straddle chunks wherever a string started), or arbitrary points (repeats make empty chunks).
 */
const cuts = fc.oneof(
  fc.constantFrom("bytes" as const, "escapes" as const),
  fc.array(fc.nat(), { maxLength: 12 }),
);

function split(bytes: Uint8Array, how: "bytes" | "escapes" | number[]): Uint8Array[] {
  if (how === "bytes") return Array.from(bytes, (_, at) => bytes.subarray(at, at + 1));
  const cutAt: number[] = [];
  if (how === "escapes") {
    for (let at = 0; at < bytes.length; at++) if (bytes[at] === 0x5c) cutAt.push(at + 1);
  } else cutAt.push(...how.map((cut) => cut % (bytes.length + 1)));
  const points = [0, ...cutAt.sort((a, b) => a - b), bytes.length];
  return points.slice(1).map((end, at) => bytes.subarray(points[at] as number, end));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The oracle: the streamed array's elements, and the document with that array emptied. */
function expectedSplit(text: string): { elements: unknown[]; skeleton: unknown } {
  const document: unknown = JSON.parse(text);
  if (isObject(document) && Object.hasOwn(document, "data")) {
    const data = document.data;
    if (Array.isArray(data)) {
      document.data = [];
      return { elements: data, skeleton: document };
    }
    if (isObject(data) && Object.hasOwn(data, "result") && Array.isArray(data.result)) {
      const elements = data.result;
      data.result = [];
      return { elements, skeleton: document };
    }
  }
  return { elements: [], skeleton: document };
}

/**
 * Pushes each chunk through one reused buffer that is scribbled over after every push, so any
 * skeleton byte or element part the scanner kept by reference would show up corrupted. Elements are
 * handed over valid during the call only: they are copied there, as a caller that keeps them does.
 */
function scan(chunks: readonly Uint8Array[], options?: AnswerScannerOptions) {
  const kept: Uint8Array[] = [];
  const scanner = new AnswerScanner((bytes) => kept.push(bytes.slice()), options);
  const scratch = new Uint8Array(Math.max(1, ...chunks.map((chunk) => chunk.length)));
  for (const chunk of chunks) {
    scratch.set(chunk);
    scanner.push(scratch.subarray(0, chunk.length));
    scratch.fill(0x5d);
  }
  const skeleton = scanner.end();
  return { texts: kept.map((bytes) => decoder.decode(bytes)), skeleton, bytesRead: scanner.bytesRead };
}

/** The UTF-16 lengths of every string in a parsed value, keys included. */
function decodedLengths(value: unknown): number[] {
  if (typeof value === "string") return [value.length];
  if (Array.isArray(value)) return value.flatMap(decodedLengths);
  if (isObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => [key.length, ...decodedLengths(item)]);
  }
  return [];
}

function scanText(input: string, options?: AnswerScannerOptions) {
  return scan([encoder.encode(input)], options);
}

describe("AnswerScanner", () => {
  test.prop([answer, noise, cuts], { numRuns: 1000 })(
    "any answer in any chunks: the elements are the array's, exactly as written, and end() the rest",
    (value, noise, how) => {
      const input = new Writer(noise).document(value);
      const bytes = encoder.encode(input);
      const expected = expectedSplit(input);

      const { texts, skeleton, bytesRead } = scan(split(bytes, how));

      expect(texts.map((t) => JSON.parse(t))).toStrictEqual(expected.elements);
      expect(skeleton).toStrictEqual(expected.skeleton);
      expect(bytesRead).toBe(bytes.length);
      let from = 0;
      for (const t of texts) {
        expect(t.trim()).toBe(t);
        const at = input.indexOf(t, from);
        expect(at).toBeGreaterThanOrEqual(from);
        from = at + t.length;
      }
    },
  );

  test.prop([answer, noise, cuts], { numRuns: 1000 })(
    "each element comes with the bytes of its longest string as written, never fewer than its longest decoded",
    (value, noise, how) => {
      const input = new Writer(noise).document(value);
      const seen: Array<{ text: string; longest: number }> = [];
      const scanner = new AnswerScanner((bytes, longest) =>
        seen.push({ text: decoder.decode(bytes), longest }),
      );
      for (const chunk of split(encoder.encode(input), how)) scanner.push(chunk);
      scanner.end();

      for (const { text, longest } of seen) {
        // Outside its strings, JSON has no quote: each match is one string, key or value, as written.
        const written = [...text.matchAll(/"((?:[^"\\]|\\[\s\S])*)"/g)].map(
          (match) => encoder.encode(match[1]).length,
        );
        expect(longest).toBe(Math.max(0, ...written));
        expect(longest).toBeGreaterThanOrEqual(Math.max(0, ...decodedLengths(JSON.parse(text))));
      }
    },
  );

  test.prop(
    [
      fc.tuple(answerObject, noise).chain(([value, noise]) => {
        const bytes = encoder.encode(new Writer(noise).document(value));
        // Every cut before the closing brace leaves the top-level object open.
        const closing = bytes.lastIndexOf(0x7d);
        return fc.tuple(fc.constant(bytes), fc.integer({ min: 0, max: closing - 1 }));
      }),
      cuts,
    ],
    { numRuns: 500 },
  )("any strict prefix of an answer is rejected", ([bytes, length], how) => {
    expect(() => scan(split(bytes.subarray(0, length), how))).toThrow(AnswerFormatError);
  });

  test.prop(
    [
      fc.array(fc.oneof(json, series), { minLength: 1, maxLength: 5 }),
      fc.constantFrom("double", "missing", "leading", "trailing", "only"),
      fc.nat(),
      fc.boolean(),
      noise,
      cuts,
    ],
    { numRuns: 300 },
  )(
    "separators in the array other than exactly one comma between elements are rejected",
    (items, fault, at, nested, noise, how) => {
      const writer = new Writer(noise);
      const texts = items.map((item) => writer.value(item));
      const separators = texts.slice(1).map(() => `${writer.ws()},${writer.ws()}`);
      let head = "";
      let tail = "";
      if ((fault === "double" || fault === "missing") && separators.length > 0) {
        separators[at % separators.length] = fault === "double" ? `,${writer.ws()},` : " ";
      } else if (fault === "leading" || fault === "only") {
        head = `,${writer.ws()}`;
      } else {
        tail = `${writer.ws()},`;
      }
      let array = `[${head}${texts.map((t, i) => `${t}${separators[i] ?? ""}`).join("")}${tail}]`;
      if (fault === "only") array = `[${writer.ws()},${writer.ws()}]`;
      const input = nested
        ? `{"status":"success","data":{"resultType":"matrix","result":${array}}}`
        : `{"status":"success","data":${array}}`;
      expect(() => scan(split(encoder.encode(input), how))).toThrow(AnswerFormatError);
    },
  );

  it.each([
    ['{"data":[1 2]}'],
    ['{"data":[1,,2]}'],
    ['{"data":[,1]}'],
    ['{"data":[1,]}'],
    ['{"data":[,]}'],
    ['{"data":{"result":[{"a":1}{"b":2}]}}'],
    ['{"data":[1}'],
    ['{"data":[{]}'],
    ['{"data":[[1}]}'],
    ['{"data":[{"a":[1]]}]}'],
    ['{"data":[1]]}'],
    ['{"data":[1],}'],
    ['{"data" [1]}'],
    ['{"a":1 "data":[1]}'],
    ['{"data":[1]} x'],
    ['{"data":[1]'],
    ['{"data":["\\"]}'],
    [""],
    ["  "],
    ['{"status":tru,"data":[]}'],
    ['{"data":[1],"data":[2]}'],
    ['{"data":[1],"d\\u0061ta":3}'],
    ['{"data":{"result":[],"result":[1]}}'],
    ['{"d\\x61ta":[1]}'],
    ["[1,2]]"],
    ["{}{}"],
  ])("rejects %j", (input) => {
    expect(() => scanText(input)).toThrow(AnswerFormatError);
    expect(() => scan(split(encoder.encode(input), "bytes"))).toThrow(AnswerFormatError);
  });

  it("rejects a skeleton that is not UTF-8", () => {
    const bytes = Uint8Array.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]);
    expect(() => scan([bytes])).toThrow(AnswerFormatError);
  });

  it.each([
    ['{"d\\u0061ta":[1,"x"]}', [1, "x"], { data: [] }],
    [
      '{"data":{"r\\u0065sult":[[1,[2]],{"a":"]}\\"["}]}}',
      [[1, [2]], { a: ']}"[' }],
      { data: { result: [] } },
    ],
    ['{"x":{"data":[1]},"data":5}', [], { x: { data: [1] }, data: 5 }],
    ['{"data":{"x":{"result":[1]}}}', [], { data: { x: { result: [1] } } }],
    ['{"data":{"result":{"a":[1]}}}', [], { data: { result: { a: [1] } } }],
    ["[1,2]", [], [1, 2]],
    [' "data" ', [], "data"],
    [" 123 ", [], 123],
    ['{"data":[ true , null ,-1.5e3, "" ]}', [true, null, -1500, ""], { data: [] }],
  ])("splits %s", (input, elements, skeleton) => {
    const { texts, skeleton: got } = scanText(input);
    expect(texts.map((t) => JSON.parse(t))).toStrictEqual(elements);
    expect(got).toStrictEqual(skeleton);
  });

  it("enforces maxElementBytes, counting exactly the element's bytes", () => {
    expect(scanText('{"data":["01234567", 1]}', { maxElementBytes: 10 }).texts).toStrictEqual([
      '"01234567"',
      "1",
    ]);
    expect(() => scanText('{"data":["0123456789"]}', { maxElementBytes: 10 })).toThrow(
      /maxElementBytes \(10 bytes\)/,
    );
    expect(() => scanText('{"data":{"result":[{"a":[1,2,3,4]}]}}', { maxElementBytes: 10 })).toThrow(
      AnswerFormatError,
    );
  });

  it("stops an oversized element while it is still arriving", () => {
    const scanner = new AnswerScanner(() => {}, { maxElementBytes: 50 });
    const chunks = split(encoder.encode(`{"data":["${"x".repeat(1000)}`), "bytes");
    expect(() => {
      for (const chunk of chunks) scanner.push(chunk);
    }).toThrow(/maxElementBytes \(50 bytes\)/);
    expect(scanner.bytesRead).toBeLessThan(100);
    expect(() => scanner.push(encoder.encode('"]}'))).toThrow(AnswerFormatError);
  });

  it("enforces maxSkeletonBytes on everything but the array's elements, commas and whitespace", () => {
    const options = { maxSkeletonBytes: 40 };
    const many = Array.from({ length: 200 }, (_, i) => `  "element ${i}"\n`).join(",");
    const { texts, skeleton } = scanText(`{"status":"success","data":[${many}]}`, options);
    expect(texts).toHaveLength(200);
    expect(skeleton).toStrictEqual({ status: "success", data: [] });
    expect(() =>
      scanText(`{"status":"success","data":[],"warnings":["${"w".repeat(40)}"]}`, options),
    ).toThrow(/maxSkeletonBytes \(40 bytes\)/);
    expect(() =>
      scan(split(encoder.encode(`[${"1,".repeat(100)}1]`), [7, 14, 21, 28, 35, 42]), options),
    ).toThrow(/maxSkeletonBytes/);
  });

  it("passes on an error thrown by onElement and refuses to go on", () => {
    const scanner = new AnswerScanner(() => {
      throw new RangeError("caller");
    });
    expect(() => scanner.push(encoder.encode('{"data":[1,2]}'))).toThrow(RangeError);
    expect(() => scanner.push(encoder.encode(" "))).toThrow(RangeError);
    expect(() => scanner.end()).toThrow(RangeError);
  });
});
