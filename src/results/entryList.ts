import { parseJsonBytes } from "../util/json.js";
import {
  addCost,
  type Budget,
  budgetWords,
  costOfText,
  type Fittable,
  type Fitted,
  fitsIn,
  formatCount,
  type Layout,
  less,
  Measure,
  prefixThatFits,
  type Truncation,
} from "./fit.js";
import { type Selected, Selection } from "./selection.js";
import { TokenTally } from "./tokens.js";

/**
 * What a list answer is (label names, label values, series, alerts, rules, silences, metadata): how
 * its streamed elements become entries, their order, and the words of a note when it is cut.
 */
export interface ListSpec<T> {
  /** The result's key holding the entries: `labels`, `series`, `alerts`… */
  key: string;
  /** The entries in a note, plural: `label names`, `alerts`. */
  noun: string;
  /** Their key in `truncated.total` and `returned` (default `key`). */
  countKey?: string;
  /**
   * Which array of the answer is streamed, as the data plane's readers take it: `data` itself or
   * `data.result` by default, `data.<streamedKey>`, or the answer itself when `bare` (Alertmanager).
   */
  format?: { streamedKey?: string; bare?: boolean; maxSkeletonBytes?: number } | undefined;
  /** The entries of one streamed element (most give one; a rule group gives its rules); undefined: not this answer's shape. */
  entriesOf(element: unknown): readonly T[] | undefined;
  /** Entries kept only if this says so (a filter applied here, as the API has none); all when unset. */
  accepts?(entry: T): boolean;
  /** The entries' order, a total one: the answer is the same whatever order the server sent. */
  compare(a: T, b: T): number;
  /** The order in words, for `truncated.order` and the note: `by name (code point order)`. */
  orderWords: string;
  /**
   * Fixed fields of the result besides the list (the label asked for), written before it. Read when the
   * list is fitted, so a field may be set once the answer is read (a note on a request made after it).
   */
  fields?: Record<string, unknown> | undefined;
  /**
   * Each entry returned as it is given, when it gains what only the whole answer tells (a rule's
   * dependencies, read in other groups): applied when the list is fitted, to the entries kept.
   */
  present?(entry: T): T;
  /** Sees every accepted entry, kept or not: what the note can tell of the ones cut (families, states). */
  tally?(entry: T): void;
  /** The note's last words: what the entries cut held (from the tally) and how to ask for less. */
  nextStep(): string;
  /** What an empty list tells the model to check or try next (given only where it fits). */
  emptyHint?: string | undefined;
}

export interface ListLimits {
  /** The most the result may take; entries beyond it are not kept while reading. */
  budget: Budget;
  /** The caller's `limit`: the most entries returned. */
  limit?: number | undefined;
  /** The `limit` sent upstream, if any: receiving that many means there may be more. */
  askedUpstream?: number | undefined;
}

/**
 * Receives a list answer's elements as they stream in (it is the data plane's sink for the answer) and
 * keeps the first entries in the spec's order that can fit the budget, counting the rest.
 */
export class ListCollector<T> {
  private readonly selection: Selection<T, T>;
  /** The entries read so far written as one list, for what each adds to it. */
  private readonly read = new TokenTally();
  private elements = 0;
  /** False once an element was not of this answer's shape. */
  private wellFormed = true;

  readonly format: ListSpec<T>["format"];

  constructor(
    private readonly spec: ListSpec<T>,
    private readonly limits: ListLimits,
  ) {
    this.format = spec.format;
    this.selection = new Selection(
      { budget: limits.budget, maxCount: limits.limit },
      { keyOf: (entry) => entry, compare: spec.compare },
    );
  }

  element(raw: Uint8Array): void {
    this.offer(parseJsonBytes(raw));
  }

  /** One element of the answer, parsed (an answer not streamed, such as metadata's object, offers its parts). */
  offer(element: unknown): void {
    this.elements++;
    const entries = this.spec.entriesOf(element);
    if (entries === undefined) {
      this.wellFormed = false;
      return;
    }
    for (const entry of entries) {
      if (this.spec.accepts !== undefined && !this.spec.accepts(entry)) continue;
      this.spec.tally?.(entry);
      const text = JSON.stringify(entry);
      const before = this.read.tokens;
      this.read.text(",").text(text);
      this.selection.offer(entry, {
        tokens: Math.max(0, this.read.tokens - before),
        bytes: Buffer.byteLength(text, "utf8") + 1,
      });
    }
  }

  /** The list (undefined when an element was not of its shape); `answerBytes`: the size of the whole answer. */
  finish(_data: unknown, answerBytes: number): EntryList<T> | undefined {
    if (!this.wellFormed) return undefined;
    const mayHaveMore =
      this.limits.askedUpstream !== undefined && this.elements === this.limits.askedUpstream;
    return new EntryList(this.spec, this.selection.result(), answerBytes, mayHaveMore, this.limits.limit);
  }
}

/** `{…fields, <key>: [...]}` in the spec's order, whole or cut to a prefix with `truncated` first (see Fittable). */
export class EntryList<T> implements Fittable {
  constructor(
    private readonly spec: ListSpec<T>,
    private readonly selected: Selected<T>,
    private readonly answerBytes: number,
    /** The server applied our `limit` (it sent exactly as many as asked): there may be more. */
    private readonly mayHaveMore: boolean,
    private readonly limit: number | undefined,
  ) {}

  /** How many entries the answer had (after any filter). */
  get total(): number {
    return this.selected.offered;
  }

  async fit(budget: Budget, layout: Layout): Promise<Fitted> {
    const { key, fields } = this.spec;
    const measure = new Measure(layout);
    const present = this.spec.present ?? ((entry: T) => entry);
    const sorted = this.selected.kept.map((entry) => present(entry.value)).sort(this.spec.compare);
    const totals = measure.totals(sorted, 2);
    const complete = sorted.length === this.selected.offered && !this.mayHaveMore;
    const empty = measure.of({ ...fields, [key]: [] });
    if (complete && prefixThatFits(totals, less(budget, empty)) === sorted.length) {
      const value = { ...fields, [key]: sorted };
      const hint = sorted.length === 0 ? this.spec.emptyHint : undefined;
      return hint !== undefined && fitsIn(addCost(empty, costOfText(hint)), budget)
        ? { value, hint }
        : { value };
    }
    // The note is reserved at its longest: as many entries returned as there are.
    const draft = this.truncation(sorted.length, budget);
    const room = less(budget, measure.of({ truncated: draft, ...fields, [key]: [] }));
    const kept = sorted.slice(0, prefixThatFits(totals, room));
    return { value: { truncated: this.truncation(kept.length, budget), ...fields, [key]: kept } };
  }

  private truncation(returned: number, budget: Budget): Truncation {
    const { noun, key, orderWords } = this.spec;
    const countKey = this.spec.countKey ?? key;
    const cutBy = this.limit !== undefined && returned === this.limit ? "limit" : "size";
    const total = `${this.mayHaveMore ? "at least " : ""}${formatCount(this.selected.offered)} ${noun}`;
    const why =
      cutBy === "limit"
        ? `Cut to limit=${this.limit}: there are ${total}`
        : `There are ${total}, more than the ${budgetWords(budget)}`;
    return {
      note: `${why}; ${key} has the first ${formatCount(returned)} ${orderWords}. ${this.spec.nextStep()}`,
      cut_by: cutBy,
      total: { [countKey]: this.selected.offered, bytes: this.answerBytes },
      returned: { [countKey]: returned },
      order: orderWords,
      ...(this.mayHaveMore ? { total_is_lower_bound: true } : {}),
    };
  }
}

/** A list of strings' element as its one entry (names, label values); undefined for anything else. */
export function stringEntries(value: unknown): string[] | undefined {
  return typeof value === "string" ? [value] : undefined;
}

/** Code-unit order, which is code-point order for the names and values Prometheus sends (ASCII in practice). */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
