import {
  type Fittable,
  type Fitted,
  formatCount,
  jsonBytes,
  prefixThatFits,
  type Truncation,
} from "./fit.js";
import { type Ranking, type Selected, Selection } from "./selection.js";

export interface NamesOptions {
  /** The most bytes the result may take; names beyond it are not kept while reading. */
  maxBytes: number;
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
const TRUNCATION_RESERVE_BYTES = 300;

/** Receives the label values of `__name__` as they stream in; keeps the first names that fit. */
export class MetricNamesCollector {
  private readonly selection: Selection<string, string>;
  /** False once an element was not a string: the answer is not a name list. */
  private allStrings = true;

  constructor(private readonly options: NamesOptions) {
    this.selection = new Selection({ maxBytes: options.maxBytes, maxCount: options.limit }, NAME_ORDER);
  }

  element(value: unknown, bytes: number): void {
    if (typeof value !== "string") {
      this.allStrings = false;
      return;
    }
    this.selection.offer(value, bytes);
  }

  /** `data` is the answer's data with its name list emptied; `answerBytes` the size of the whole answer. */
  finish(data: unknown, answerBytes: number): MetricNames | undefined {
    if (!Array.isArray(data) || !this.allStrings) return undefined;
    return new MetricNames(this.selection.result(), answerBytes, this.options);
  }
}

/** `{"metrics": [...]}`, sorted, whole or cut (see Fittable). */
export class MetricNames implements Fittable {
  constructor(
    private readonly selected: Selected<string>,
    private readonly answerBytes: number,
    private readonly options: NamesOptions,
  ) {}

  fit(maxBytes: number): Fitted {
    const sorted = this.selected.kept.slice().sort((a, b) => NAME_ORDER.compare(a.value, b.value));
    const room = maxBytes - jsonBytes({ metrics: [] });
    const complete = sorted.length === this.selected.offered && !this.mayHaveMore();
    if (complete && prefixThatFits(sorted, room) === sorted.length) {
      return { value: { metrics: sorted.map((entry) => entry.value) } };
    }
    const count = prefixThatFits(sorted, room - TRUNCATION_RESERVE_BYTES);
    const metrics = sorted.slice(0, count).map((entry) => entry.value);
    const limit = this.options.limit;
    const truncated: Truncation = {
      cut_by: limit !== undefined && metrics.length === limit ? "limit" : "size",
      total: { names: this.selected.offered, bytes: this.answerBytes },
      returned: { names: metrics.length, bytes: jsonBytes({ metrics }) },
      order: ORDER,
      ...(this.mayHaveMore() ? { total_is_lower_bound: true } : {}),
    };
    return { value: { metrics, truncated }, note: namesNote(truncated, maxBytes, limit) };
  }

  private mayHaveMore(): boolean {
    const asked = this.options.askedUpstream;
    // A server that applied the limit sends exactly that many; one that ignored it sends them all.
    return asked !== undefined && this.selected.offered === asked;
  }
}

function namesNote(truncated: Truncation, maxBytes: number, limit: number | undefined): string {
  const total = `${truncated.total_is_lower_bound ? "at least " : ""}${formatCount(truncated.total.names ?? 0)}`;
  const counts = `${total} metric names, ${formatCount(truncated.returned.names ?? 0)} returned (${ORDER}).`;
  const why =
    truncated.cut_by === "limit"
      ? `Cut to limit=${limit}: ${counts}`
      : `Cut to fit the result size limit of ${formatCount(maxBytes)} bytes: ${counts}`;
  return (
    `${why} To find other names, ask ExecuteQuery for the names matching a pattern, ` +
    `e.g. group by (__name__) ({__name__=~"http_.*"})` +
    (truncated.cut_by === "limit" ? `, or raise limit (now ${limit}).` : ", or pass a smaller limit.")
  );
}
