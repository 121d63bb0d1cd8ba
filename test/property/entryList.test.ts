import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { renderToolResult } from "../../src/mcp/toolResult.js";
import { byCodePoint, ListCollector, type ListSpec } from "../../src/results/entryList.js";
import { estimateTokens } from "../../src/results/tokens.js";

/**
 * Runs a property, then checks that the branches it asserts in ran at least `min` times each. Shrinking
 * a failure of hundreds of entries is slow: it stops after 15 s with the smallest counterexample so far.
 */
function checkBranches<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncPropertyWithHooks<Ts>,
  runs: number,
  counts: Record<string, number>,
  min = 5,
): Promise<void> {
  return fc.assert(property, { numRuns: runs, interruptAfterTimeLimit: 15_000 }).then(() => {
    for (const [branch, count] of Object.entries(counts))
      expect(count, `branch "${branch}" ran`).toBeGreaterThanOrEqual(min);
  });
}

interface Entry {
  name: string;
  state: "a" | "b";
  n: number;
}

/** An element of the answer: one entry, or a group of them (as a rule group holds rules). */
type Element = Entry | { group: Entry[] };

const encoder = new TextEncoder();

/** A total order: name (code units), then state, then n. */
function compareEntries(x: Entry, y: Entry): number {
  return byCodePoint(x.name, y.name) || byCodePoint(x.state, y.state) || x.n - y.n;
}

function isEntry(value: unknown): value is Entry {
  const entry = value as Partial<Entry> | null;
  return (
    typeof entry === "object" &&
    entry !== null &&
    typeof entry.name === "string" &&
    (entry.state === "a" || entry.state === "b") &&
    typeof entry.n === "number"
  );
}

function entriesOf(element: unknown): Entry[] | undefined {
  if (isEntry(element)) return [element];
  const group = (element as { group?: unknown } | null)?.group;
  return Array.isArray(group) && group.every(isEntry) ? group : undefined;
}

function entriesOfElement(element: Element): Entry[] {
  return "group" in element ? element.group : [element];
}

/** Filters an entry list may apply (undefined: no `accepts`, all kept). */
const FILTERS: Record<string, ((entry: Entry) => boolean) | undefined> = {
  all: undefined,
  onlyA: (entry) => entry.state === "a",
  notMultipleOf3: (entry) => entry.n % 3 !== 0,
  none: () => false,
};

/** Names with characters JSON escapes and non-ASCII ones (no lone surrogates: UTF-8 cannot carry them). */
const nameChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz_") },
  { weight: 1, arbitrary: fc.constantFrom('"', "\\", "\n", "é", "€", "😀", "Z", "0", " ") },
);
const entry: fc.Arbitrary<Entry> = fc.record({
  name: fc.string({ unit: nameChar, minLength: 1, maxLength: 24 }),
  state: fc.constantFrom<"a" | "b">("a", "b"),
  n: fc.integer({ min: -1_000, max: 1_000_000 }),
});
const element: fc.Arbitrary<Element> = fc.oneof(
  { weight: 8, arbitrary: entry },
  { weight: 1, arbitrary: fc.record({ group: fc.array(entry, { maxLength: 6 }) }) },
);
/** How the test feeds one element: as its JSON bytes (element) or already parsed (offer). */
const feed = fc.constantFrom<"bytes" | "offer">("bytes", "bytes", "offer");

interface Spec {
  spec: ListSpec<Entry>;
  /** What nextStep() says once every accepted entry was tallied. */
  tallied: () => { a: number; b: number };
}

function makeSpec(options: {
  filter: ((entry: Entry) => boolean) | undefined;
  fields: Record<string, unknown> | undefined;
  countKey: string | undefined;
  emptyHint: string | undefined;
}): Spec {
  const counts = { a: 0, b: 0 };
  const spec: ListSpec<Entry> = {
    key: "things",
    noun: "things",
    ...(options.countKey === undefined ? {} : { countKey: options.countKey }),
    entriesOf,
    ...(options.filter === undefined ? {} : { accepts: options.filter }),
    compare: compareEntries,
    orderWords: "by name, then state, then n",
    fields: options.fields,
    tally: (one) => {
      counts[one.state]++;
    },
    nextStep: () => `States seen: a=${counts.a}, b=${counts.b}. Ask for one state.`,
    emptyHint: options.emptyHint,
  };
  return { spec, tallied: () => ({ ...counts }) };
}

interface Rendered {
  text: string;
  json: Record<string, unknown> & {
    truncated?: {
      note: string;
      cut_by: "limit" | "size";
      total: Record<string, number>;
      returned: Record<string, number>;
      order: string;
      total_is_lower_bound?: boolean;
    };
  };
  content: Array<{ type: string; text?: string }>;
}

async function render(
  collector: ListCollector<Entry>,
  answerBytes: number,
  budget: { tokens: number; bytes: number },
): Promise<Rendered> {
  const list = collector.finish(undefined, answerBytes);
  if (list === undefined) throw new Error("a list of well-formed elements was not accepted");
  const out = await renderToolResult(list, budget);
  const content = out.content as Array<{ type: string; text?: string }>;
  const text = content[0]?.text ?? "";
  return { text, json: JSON.parse(text) as Rendered["json"], content };
}

describe("an entry list read from a stream", () => {
  it("returns the first accepted entries in the spec's order that fit, with a truncation that tells the truth", async () => {
    const counts = { whole: 0, cutBySize: 0, cutByLimit: 0, lowerBound: 0, emptyWithHint: 0 };
    const property = fc.asyncProperty(
      fc.oneof(
        fc.array(fc.tuple(element, feed), { maxLength: 12 }),
        fc.array(fc.tuple(element, feed), { maxLength: 400, size: "max" }),
      ),
      fc.constantFrom(...Object.keys(FILTERS)),
      fc.integer({ min: 1_000, max: 6_000 }),
      fc.option(fc.integer({ min: 1, max: 250 }), { nil: undefined, freq: 2 }),
      fc.option(fc.constantFrom<Record<string, unknown>>({ label: "job" }, { state: "a", source: "test" }), {
        nil: undefined,
      }),
      fc.option(fc.constant("items"), { nil: undefined }),
      fc.constantFrom<"none" | "exact" | "more">("none", "none", "exact", "more"),
      fc.option(fc.constant("Nothing matched: check the filter."), { nil: undefined }),
      async (fed, filterName, tokens, limit, fields, countKey, upstream, emptyHint) => {
        const budget = { tokens, bytes: 1_000_000 };
        const filter = FILTERS[filterName];
        const { spec, tallied } = makeSpec({ filter, fields, countKey, emptyHint });
        const askedUpstream =
          upstream === "exact" ? fed.length : upstream === "more" ? fed.length + 1 : undefined;
        const collector = new ListCollector(spec, { budget, limit, askedUpstream });
        let answerBytes = 0;
        for (const [one, how] of fed) {
          const bytes = encoder.encode(JSON.stringify(one));
          answerBytes += bytes.length;
          if (how === "bytes") collector.element(bytes);
          else collector.offer(JSON.parse(JSON.stringify(one)));
        }
        const { text, json, content } = await render(collector, answerBytes, budget);

        const accepted = fed.flatMap(([one]) => entriesOfElement(one)).filter((e) => filter?.(e) ?? true);
        const sorted = [...accepted].sort(compareEntries);
        const returned = json.things as Entry[];
        const key = countKey ?? "things";

        expect(estimateTokens(text)).toBeLessThanOrEqual(budget.tokens);
        expect(Buffer.byteLength(text, "utf8")).toBeLessThanOrEqual(budget.bytes);
        expect(returned).toEqual(sorted.slice(0, returned.length));
        if (limit !== undefined) expect(returned.length).toBeLessThanOrEqual(limit);
        // The tally saw every accepted entry, kept or not.
        const states = tallied();
        expect(states.a + states.b).toBe(accepted.length);
        for (const [name, value] of Object.entries(fields ?? {})) expect(json[name]).toEqual(value);

        if (json.truncated === undefined) {
          counts.whole++;
          expect(upstream).not.toBe("exact");
          expect(json).toEqual({ ...fields, things: sorted });
          // Keys in order: the fields, then the list.
          expect(Object.keys(json)).toEqual([...Object.keys(fields ?? {}), "things"]);
          const hinted = emptyHint !== undefined && sorted.length === 0;
          expect(content.length).toBe(hinted ? 2 : 1);
          if (hinted) {
            counts.emptyWithHint++;
            expect(content[1]?.text).toBe(emptyHint);
          }
          return;
        }
        const truncated = json.truncated;
        expect(text.startsWith('{"truncated":{"note":"')).toBe(true);
        expect(content.length).toBe(1);
        expect(truncated.total[key]).toBe(accepted.length);
        expect(truncated.total.bytes).toBe(answerBytes);
        expect(truncated.returned).toEqual({ [key]: returned.length });
        expect(truncated.order).toBe("by name, then state, then n");
        expect(truncated.cut_by).toBe(returned.length === limit ? "limit" : "size");
        expect(truncated.note).toContain(spec.nextStep());
        expect(truncated.note).toContain(`things has the first ${returned.length.toLocaleString("en-US")} `);
        if (upstream === "exact") {
          counts.lowerBound++;
          expect(truncated.total_is_lower_bound).toBe(true);
          expect(truncated.note).toContain("at least ");
        } else {
          expect(truncated).not.toHaveProperty("total_is_lower_bound");
          // Nothing the server sent is missing, so something was cut.
          expect(returned.length).toBeLessThan(accepted.length);
        }
        expect(
          truncated.note.startsWith(truncated.cut_by === "limit" ? `Cut to limit=${limit}: ` : "There are "),
        ).toBe(true);
        if (truncated.cut_by === "limit") counts.cutByLimit++;
        else if (upstream !== "exact") counts.cutBySize++;
      },
    );
    await checkBranches(property, 250, counts);
  }, 30_000);

  it("returns undefined from finish when an element is not of the answer's shape", () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 20 }),
        fc.nat(),
        fc.constantFrom<unknown>(
          42,
          "a string",
          null,
          { name: 1, state: "a", n: 0 },
          { group: [{ name: "x" }] },
        ),
        fc.boolean(),
        (entries, at, bad, asBytes) => {
          const { spec } = makeSpec({
            filter: undefined,
            fields: undefined,
            countKey: undefined,
            emptyHint: undefined,
          });
          const collector = new ListCollector(spec, { budget: { tokens: 5_000, bytes: 1_000_000 } });
          const where = at % (entries.length + 1);
          const fed: unknown[] = [...entries.slice(0, where), bad, ...entries.slice(where)];
          for (const one of fed) {
            if (asBytes) collector.element(encoder.encode(JSON.stringify(one)));
            else collector.offer(one);
          }
          expect(collector.finish(undefined, 100)).toBeUndefined();
        },
      ),
      { numRuns: 100 },
    );
    // The same elements without the bad one make a list.
    const { spec } = makeSpec({
      filter: undefined,
      fields: undefined,
      countKey: undefined,
      emptyHint: undefined,
    });
    const collector = new ListCollector(spec, { budget: { tokens: 5_000, bytes: 1_000_000 } });
    collector.offer({ name: "x", state: "a", n: 1 });
    expect(collector.finish(undefined, 10)).toBeDefined();
  });

  it("gives the empty hint as a second content item only when the list is empty and the hint fits", async () => {
    const hint = "Nothing matched the filter: check the state you asked for, or drop the filter altogether.";
    const emptyList = () => {
      const { spec } = makeSpec({
        filter: FILTERS.none,
        fields: { label: "job" },
        countKey: undefined,
        emptyHint: hint,
      });
      const collector = new ListCollector(spec, { budget: { tokens: 5_000, bytes: 1_000_000 } });
      collector.element(encoder.encode(JSON.stringify({ name: "up", state: "a", n: 1 })));
      return collector;
    };
    const roomy = await render(emptyList(), 40, { tokens: 1_000, bytes: 1_000_000 });
    expect(roomy.json).toEqual({ label: "job", things: [] });
    expect(roomy.content.map((item) => item.text)).toEqual([roomy.text, hint]);

    // The empty list fits in 40 bytes; the list and the hint do not.
    const tight = await render(emptyList(), 40, { tokens: 1_000, bytes: 40 });
    expect(tight.json).toEqual({ label: "job", things: [] });
    expect(tight.content).toHaveLength(1);

    // A list with entries never carries the hint.
    const { spec } = makeSpec({ filter: undefined, fields: undefined, countKey: undefined, emptyHint: hint });
    const collector = new ListCollector(spec, { budget: { tokens: 5_000, bytes: 1_000_000 } });
    collector.offer({ name: "up", state: "a", n: 1 });
    const full = await render(collector, 40, { tokens: 1_000, bytes: 1_000_000 });
    expect(full.json).toEqual({ things: [{ name: "up", state: "a", n: 1 }] });
    expect(full.content).toHaveLength(1);
  });
});
