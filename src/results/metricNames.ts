import { parseJsonBytes } from "../json.js";
import {
  type Budget,
  budgetWords,
  type Fittable,
  type Fitted,
  formatCount,
  type Layout,
  less,
  Measure,
  prefixThatFits,
  type Truncation,
} from "./fit.js";
import { type Ranking, type Selected, Selection } from "./selection.js";
import { TokenTally } from "./tokens.js";

export interface NamesOptions {
  /** The most the result may take; names beyond it are not kept while reading. */
  budget: Budget;
  /** The caller's `limit`: the most names returned. */
  limit?: number | undefined;
  /** The `limit` sent to Prometheus, if any: receiving that many means there may be more. */
  askedUpstream?: number | undefined;
}

const NAME_ORDER: Ranking<string, string> = {
  keyOf: (name) => name,
  // Code-unit order, which is code-point order for metric names (ASCII in practice).
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
};

const ORDER = "first by name (code point order)";
/** The note names this many of the largest families of names (by their prefix up to the first `_`). */
const PREFIXES_NAMED = 8;
/** Prefixes counted at most: a list of that many families is no guide anyway. */
const MAX_PREFIXES = 10_000;

/** Receives the label values of `__name__` as they stream in; keeps the first names that fit. */
export class MetricNamesCollector {
  private readonly selection: Selection<string, string>;
  private readonly prefixes = new Map<string, number>();
  /** The names read so far as one list, for what each adds to it. */
  private readonly read = new TokenTally();
  /** False once an element was not a string: the answer is not a name list. */
  private allStrings = true;

  constructor(private readonly options: NamesOptions) {
    this.selection = new Selection({ budget: options.budget, maxCount: options.limit }, NAME_ORDER);
  }

  element(raw: Uint8Array): void {
    const value = parseJsonBytes(raw);
    if (typeof value !== "string") {
      this.allStrings = false;
      return;
    }
    const prefix = prefixOf(value);
    const count = this.prefixes.get(prefix);
    if (count !== undefined) this.prefixes.set(prefix, count + 1);
    else if (this.prefixes.size < MAX_PREFIXES) this.prefixes.set(prefix, 1);
    // The raw bytes are the name quoted, a comma joins it to the next: what it adds to a list of the
    // names in the order they come (Prometheus's, which is the list's), while reading.
    const before = this.read.tokens;
    this.read.text(",").bytes(raw);
    this.selection.offer(value, { tokens: Math.max(0, this.read.tokens - before), bytes: raw.length + 1 });
  }

  /** `data` is the answer's data with its name list emptied; `answerBytes` the size of the whole answer. */
  finish(data: unknown, answerBytes: number): MetricNames | undefined {
    if (!Array.isArray(data) || !this.allStrings) return undefined;
    return new MetricNames(this.selection.result(), answerBytes, this.prefixes, this.options);
  }
}

/** `{"metrics": [...]}`, sorted, whole or cut (see Fittable). */
export class MetricNames implements Fittable {
  constructor(
    private readonly selected: Selected<string>,
    private readonly answerBytes: number,
    private readonly prefixes: ReadonlyMap<string, number>,
    private readonly options: NamesOptions,
  ) {}

  async fit(budget: Budget, layout: Layout): Promise<Fitted> {
    const measure = new Measure(layout);
    const sorted = this.selected.kept.slice().sort((a, b) => NAME_ORDER.compare(a.value, b.value));
    const totals = measure.totals(
      sorted.map((entry) => entry.value),
      2,
    );
    const complete = sorted.length === this.selected.offered && !this.mayHaveMore();
    const empty = measure.of({ metrics: [] });
    if (complete && prefixThatFits(totals, less(budget, empty)) === sorted.length) {
      return { value: { metrics: sorted.map((entry) => entry.value) } };
    }
    // The note is reserved at its longest: as many names returned as there are.
    const draft = this.truncation(sorted.length, budget);
    const room = less(budget, measure.of({ truncated: draft, metrics: [] }));
    const metrics = sorted.slice(0, prefixThatFits(totals, room)).map((entry) => entry.value);
    return { value: { truncated: this.truncation(metrics.length, budget), metrics } };
  }

  private truncation(returned: number, budget: Budget): Truncation {
    const limit = this.options.limit;
    const cutBy = limit !== undefined && returned === limit ? "limit" : "size";
    const lowerBound = this.mayHaveMore();
    return {
      note: this.note(cutBy, returned, budget, lowerBound),
      cut_by: cutBy,
      total: { names: this.selected.offered, bytes: this.answerBytes },
      returned: { names: returned },
      order: ORDER,
      ...(lowerBound ? { total_is_lower_bound: true } : {}),
    };
  }

  private note(cutBy: "size" | "limit", returned: number, budget: Budget, lowerBound: boolean): string {
    const total = `${lowerBound ? "at least " : ""}${formatCount(this.selected.offered)}`;
    const why =
      cutBy === "limit"
        ? `Cut to limit=${this.options.limit}: Prometheus has ${total} metric names`
        : `Prometheus has ${total} metric names, more than the ${budgetWords(budget)}`;
    const largest = [...this.prefixes]
      .sort((a, b) => b[1] - a[1] || NAME_ORDER.compare(a[0], b[0]))
      .slice(0, PREFIXES_NAMED);
    const families = largest.map(([prefix, count]) => `${prefix} (${formatCount(count)})`).join(", ");
    const example = largest[0]?.[0] ?? "http_";
    return (
      `${why}; metrics has the first ${formatCount(returned)} by name. ` +
      `The largest families: ${families}. ` +
      `To list one family, ask ExecuteQuery for group by (__name__) ({__name__=~"${example}.*"}).`
    );
  }

  private mayHaveMore(): boolean {
    const asked = this.options.askedUpstream;
    // A server that applied the limit sends exactly that many; one that ignored it sends them all.
    return asked !== undefined && this.selected.offered === asked;
  }
}

/** A metric name's family: its prefix up to and with the first `_` (the whole name when it has none). */
function prefixOf(name: string): string {
  const end = name.indexOf("_", 1);
  return end === -1 ? name : name.slice(0, end + 1);
}
