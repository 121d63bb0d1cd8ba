import { isCutValue } from "../monitoredText.js";
import { byCodePoint, type ListSpec, stringEntries } from "./entryList.js";
import { formatCount } from "./fit.js";

/** The note names this many of the largest families of names (by their prefix up to the first `_`). */
const PREFIXES_NAMED = 8;
/** Prefixes counted at most: a list of that many families is no guide anyway. */
const MAX_PREFIXES = 10_000;

/**
 * The label values of `__name__` as a list (see ListCollector): the first names that fit, and a count
 * of names by family (their prefix up to the first `_`) for the note of a cut list. A new one per read.
 */
export function metricNamesSpec(): ListSpec<string> {
  const prefixes = new Map<string, number>();
  return {
    key: "metrics",
    noun: "metric names",
    countKey: "names",
    entriesOf: stringEntries,
    compare: byCodePoint,
    orderWords: "by name (code point order)",
    tally(name) {
      const prefix = prefixOf(name);
      const count = prefixes.get(prefix);
      if (count !== undefined) prefixes.set(prefix, count + 1);
      else if (prefixes.size < MAX_PREFIXES) prefixes.set(prefix, 1);
    },
    nextStep() {
      const largest = [...prefixes]
        .sort((a, b) => b[1] - a[1] || byCodePoint(a[0], b[0]))
        .slice(0, PREFIXES_NAMED);
      const families = largest.map(([prefix, count]) => `${prefix} (${formatCount(count)})`).join(", ");
      // A cut name's family is no regex to copy.
      const example = largest.find(([prefix]) => !isCutValue(prefix))?.[0] ?? "http_";
      return `The largest families: ${families}. To list one family, call ListMetrics with match {__name__=~"${example}.*"}.`;
    },
  };
}

/** A metric name's family: its prefix up to and with the first `_` (the whole name when it has none). */
function prefixOf(name: string): string {
  const end = name.indexOf("_", 1);
  return end === -1 ? name : name.slice(0, end + 1);
}
