import { fc } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEPT_END_CHARS, MAX_VALUE_CHARS } from "../../src/monitoredText.js";
import type { Budget } from "../../src/results/fit.js";
import {
  ExecuteQuery,
  ExecuteRangeQuery,
  FindSeries,
  GetMetricMetadata,
  ListAlerts,
  ListLabelValues,
  ListRules,
  ListSilences,
  PlotRangeQuery,
} from "../../tools/index.js";
import type { Tool } from "../../tools/types.js";
import { type FaultServer, type FaultStep, startFaultServer, successBody } from "../support/faultServer.js";
import { DEFAULT_BUDGET, makeToolCall, toolResult } from "../support/toolCall.js";

/**
 * Every text answer holds the strings of the monitored systems bounded (issue 36): generated label names
 * and values, annotations, rule text, silence comments and creators, metric help, some longer than
 * MAX_VALUE_CHARS and of every kind of text, answered by a scripted upstream to each tool that shows them,
 * called through the real server. Each string is there whole up to MAX_VALUE_CHARS, else its start, the
 * marker and its end; no string of an item is longer; no item is missing because one of its values was long.
 */

const T = 1_700_000_000;

/** Characters of every kind a tokenizer and JSON treat differently, two-unit ones included. */
const unit = fc.oneof(
  fc.constantFrom(
    "a",
    "x",
    " ",
    "the ",
    "0",
    "f",
    "é",
    "中",
    "数据",
    "😀",
    "🚨",
    '"',
    "\\",
    "\n",
    "\u0001",
    "/",
  ),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
);

/** Lengths of the long string of an item: none over the cap (some right at it), or over it (some just). */
const LONG_LENGTHS = {
  whole: fc.oneof(
    fc.integer({ min: 0, max: 40 }),
    fc.integer({ min: MAX_VALUE_CHARS - 3, max: MAX_VALUE_CHARS }),
  ),
  cut: fc.oneof(
    fc.integer({ min: MAX_VALUE_CHARS + 1, max: MAX_VALUE_CHARS + 3 }),
    fc.integer({ min: MAX_VALUE_CHARS + 4, max: 30_000 }),
  ),
};
type Lengths = keyof typeof LONG_LENGTHS;

/**
 * A string of exactly `length` UTF-16 units: a pattern repeated while its next character fits (a
 * character of two units or more may not), then `a` to the length.
 */
function text(length: fc.Arbitrary<number>): fc.Arbitrary<string> {
  return fc
    .record({ pattern: fc.array(unit, { minLength: 1, maxLength: 6 }), length })
    .map(({ pattern, length }) => {
      let built = "";
      for (let at = 0; ; at++) {
        const next = pattern[at % pattern.length] as string;
        if (built.length + next.length > length) break;
        built += next;
      }
      return built.padEnd(length, "a");
    });
}

/** One item: an id, and three strings of which at most one is long. */
interface Item {
  id: string;
  strings: [string, string, string];
}

/** One to three items, each with one string of `lengths` in any of its three places, two short ones. */
function items(lengths: Lengths, most: number): fc.Arbitrary<Item[]> {
  const strings = fc
    .record({
      long: text(LONG_LENGTHS[lengths]),
      short: fc.tuple(text(fc.nat(12)), text(fc.nat(12))),
      at: fc.nat(2),
    })
    .map(({ long, short, at }) => {
      const all = [...short];
      all.splice(at, 0, long);
      return all as [string, string, string];
    });
  return fc
    .array(strings, { minLength: 1, maxLength: most })
    .map((list) => list.map((three, index): Item => ({ id: `item-${index}`, strings: three })));
}

/** What a tool is asked, and the upstream's answer to it for some items. */
interface Kind {
  tool: Tool;
  args: Record<string, unknown>;
  body(items: readonly Item[]): unknown;
  /** The generated strings an answer must show, each bounded (ListLabelValues: no ids, values only). */
  shown(items: readonly Item[]): string[];
  /**
   * Items and runs at most (default 3 and RUNS): a chart draws its lines' labels, which is the charts'
   * own bounding to test, and takes seconds; one series is drawn as its metric's name.
   */
  most?: { items: number; runs: number };
  /** The result's budget (default DEFAULT_BUDGET): room for every item whole, so nothing is cut for size. */
  budget?: Budget;
}

/** Names an item's labels have besides the generated one. */
const FIXED_NAMES = new Set(["__name__", "id", "a", "b", "alertname", "summary"]);

/** A generated string as a label name: itself, unless it is one of FIXED_NAMES (then a `~` follows). */
function nameOf(text: string): string {
  return FIXED_NAMES.has(text) ? `${text}~` : text;
}

/**
 * The query tools' budget: their series_stats table repeats each series' differing labels beside its curve,
 * so three items with a value of MAX_VALUE_CHARS three-byte characters (priced about 3 tokens each by the
 * estimate) come to about 40,000 tokens, twice the default; the bounding of strings is what is tested here.
 */
const QUERY_BUDGET: Budget = { ...DEFAULT_BUDGET, tokens: 3 * DEFAULT_BUDGET.tokens };

/** Label sets: two values, and a label named after the third string. */
function labels({ id, strings: [a, b, c] }: Item): Record<string, string> {
  return { __name__: "m", id, a, b, [nameOf(c)]: "x" };
}
const labelStrings = ({ strings: [a, b, c] }: Item) => [a, b, nameOf(c)];
const range = { query: "m", start: String(T), end: String(T + 60), step: "60" };
const matrix = (list: readonly Item[]) =>
  successBody({
    resultType: "matrix",
    result: list.map((one) => ({
      metric: labels(one),
      values: [
        [T, "1"],
        [T + 60, "2"],
      ],
    })),
  });

const KINDS: Record<string, Kind> = {
  ExecuteQuery: {
    tool: ExecuteQuery,
    args: { query: "m", time: String(T) },
    body: (list) =>
      successBody({
        resultType: "vector",
        result: list.map((one) => ({ metric: labels(one), value: [T, "1"] })),
      }),
    shown: (list) => list.flatMap(labelStrings),
    budget: QUERY_BUDGET,
  },
  ExecuteRangeQuery: {
    tool: ExecuteRangeQuery,
    args: range,
    body: matrix,
    shown: (list) => list.flatMap(labelStrings),
    budget: QUERY_BUDGET,
  },
  PlotRangeQuery: {
    tool: PlotRangeQuery,
    args: range,
    body: matrix,
    shown: (list) => list.flatMap(labelStrings),
    most: { items: 1, runs: 4 },
  },
  FindSeries: {
    tool: FindSeries,
    args: { match: ["m"] },
    body: (list) => successBody(list.map(labels)),
    shown: (list) => list.flatMap(labelStrings),
  },
  ListLabelValues: {
    tool: ListLabelValues,
    args: { label: "a" },
    body: (list) => successBody([...new Set(list.flatMap((one) => one.strings))]),
    shown: (list) => list.flatMap((one) => one.strings),
  },
  GetMetricMetadata: {
    tool: GetMetricMetadata,
    args: {},
    body: (list) =>
      successBody(
        Object.fromEntries(list.map(({ id, strings: [a, b, c] }) => [id, [{ type: c, help: a, unit: b }]])),
      ),
    shown: (list) => list.flatMap(({ strings: [a, b, c] }) => [a, b, c]),
  },
  ListAlerts: {
    tool: ListAlerts,
    args: {},
    body: (list) =>
      successBody({
        alerts: list.map(({ id, strings: [a, b, c] }) => ({
          labels: { alertname: "Injected", id, a },
          annotations: { summary: b, [nameOf(c)]: "x" },
          state: "firing",
          activeAt: "2023-11-14T22:13:20Z",
          value: "1e+00",
        })),
      }),
    shown: (list) => list.flatMap(({ strings: [a, b, c] }) => [a, b, nameOf(c)]),
  },
  ListRules: {
    tool: ListRules,
    args: {},
    body: (list) =>
      successBody({
        groups: [
          {
            name: "g",
            file: "rules.yml",
            rules: list.map(({ id, strings: [a, b, c] }) => ({
              name: id,
              query: a,
              type: "alerting",
              health: "err",
              lastError: b,
              labels: { [nameOf(c)]: "x" },
              annotations: {},
              state: "inactive",
              alerts: [],
              duration: 0,
            })),
          },
        ],
      }),
    shown: (list) => list.flatMap(({ strings: [a, b, c] }) => [a, b, nameOf(c)]),
  },
  ListSilences: {
    tool: ListSilences,
    args: {},
    body: (list) =>
      list.map(({ id, strings: [a, b, c] }) => ({
        id,
        status: { state: "active" },
        matchers: [{ name: "alertname", value: a, isRegex: false, isEqual: true }],
        startsAt: "2023-11-14T22:13:20Z",
        endsAt: "2099-11-14T22:13:20Z",
        createdBy: b,
        comment: c,
      })),
    shown: (list) => list.flatMap(({ strings }) => strings),
  },
};

/**
 * The spec of a cut value, written out: its first MAX_VALUE_CHARS - KEPT_END_CHARS units (one fewer
 * rather than half a pair), the marker, its last KEPT_END_CHARS units (one fewer rather than half a pair).
 */
function expectedShown(value: string): string {
  if (value.length <= MAX_VALUE_CHARS) return value;
  const startUnits = MAX_VALUE_CHARS - KEPT_END_CHARS;
  const highAtCut = value.charCodeAt(startUnits - 1) >= 0xd800 && value.charCodeAt(startUnits - 1) <= 0xdbff;
  const start = value.slice(0, highAtCut ? startUnits - 1 : startUnits);
  const from = value.length - KEPT_END_CHARS;
  const lowAtCut = value.charCodeAt(from) >= 0xdc00 && value.charCodeAt(from) <= 0xdfff;
  const end = value.slice(lowAtCut ? from + 1 : from);
  const cut = value.length - start.length - end.length;
  return `${start}…[cut: ${cut.toLocaleString("en-US")} character${cut === 1 ? "" : "s"}; to match it, use =~ with its start, .* and its end]…${end}`;
}

/** Every string of a value, keys included, with where it is. */
function stringsOf(value: unknown, path = ""): Array<{ path: string; text: string }> {
  if (typeof value === "string") return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringsOf(item, `${path}[${index}]`));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => [
      { path: `${path}.{key}`, text: key },
      ...stringsOf(item, `${path}.${key}`),
    ]);
  }
  return [];
}

/**
 * Strings that join several values by design: a silence's matchers (name, operator, quoted value) and the
 * chart's line names (the labels that tell the lines apart). Each value in them is bounded.
 */
const JOINED = /^\.silences\[\d+\]\.matchers\[\d+\]$|^\.chart\.lines\[\d+\]$/;
/** Runs of each property: one per kind and branch. */
const RUNS = 12;
/** The longest marker: a count of up to 9,999,999 characters cut. */
const LONGEST_MARKER = "…[cut: 9,999,999 characters; to match it, use =~ with its start, .* and its end]…"
  .length;

describe("text from monitored systems in every answer", () => {
  let upstream: FaultServer;
  // One step, replaced before each call: every request gets the script's last step.
  const script: FaultStep[] = [{ status: 200, body: successBody() }];

  beforeAll(async () => {
    upstream = await startFaultServer(script);
  });

  afterAll(async () => {
    await upstream?.close();
  });

  describe.each(Object.keys(KINDS))("%s", (name) => {
    const kind = KINDS[name] as Kind;

    it.each(["whole", "cut"] as const)(
      "values %s: every item shown, each string whole up to MAX_VALUE_CHARS or its start, the marker and its end, none longer",
      async (lengths) => {
        const most = kind.most ?? { items: 3, runs: RUNS };
        let ran = 0;
        await fc.assert(
          fc.asyncProperty(items(lengths, most.items), async (list) => {
            const generated = kind.shown(list);
            // The branch asserted below is the one this property is about.
            expect(generated.some((one) => one.length > MAX_VALUE_CHARS)).toBe(lengths === "cut");
            ran++;
            const strings = await answerStrings(kind, list);
            if (name !== "ListLabelValues") {
              for (const { id } of list) expect(strings.map((one) => one.text)).toContain(id);
            }
            // An empty string has nothing to cut (and an empty lastError is left out).
            for (const original of generated.filter((one) => one !== "")) {
              const shown = expectedShown(original);
              const found = strings.some(
                ({ path, text }) =>
                  text === shown || (JOINED.test(path) && text.includes(JSON.stringify(shown))),
              );
              expect(found, JSON.stringify(shown).slice(0, 120)).toBe(true);
            }
            for (const { path, text } of strings) {
              if (!JOINED.test(path))
                expect(text.length, path).toBeLessThanOrEqual(MAX_VALUE_CHARS + LONGEST_MARKER);
            }
          }),
          { numRuns: most.runs },
        );
        expect(ran).toBeGreaterThanOrEqual(most.runs);
      },
      60_000,
    );
  });

  /** The strings of the tool's answer to `list`, through the real server: checked to be whole (not cut for size). */
  async function answerStrings(
    kind: Kind,
    list: readonly Item[],
  ): Promise<Array<{ path: string; text: string }>> {
    script[0] = { status: 200, body: kind.body(list) };
    const call = makeToolCall(
      { prometheusUrl: upstream.url, prometheusAuth: "none", alertmanagerUrl: upstream.url },
      { budget: kind.budget ?? DEFAULT_BUDGET },
    );
    const result = await toolResult(kind.tool, kind.args, call);
    const text = result.content.find((content) => content.type === "text");
    const answerText = text?.type === "text" ? text.text : "";
    expect(result.isError, answerText.slice(0, 500)).toBeFalsy();
    const value = JSON.parse(answerText) as Record<string, unknown>;
    expect(value).toStrictEqual(result.structuredContent);
    // Nothing was cut for size: one long value never makes an item go.
    expect(value.truncated).toBeUndefined();
    return stringsOf(value);
  }
});
