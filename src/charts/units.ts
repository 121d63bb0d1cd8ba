/**
 * The unit of a chart's values, read from its query by Prometheus's naming conventions
 * (https://prometheus.io/docs/practices/naming/: a metric's name ends in its base unit, `_total` for a
 * counter, `_sum` / `_count` / `_bucket` for a histogram's or summary's parts):
 *
 * - `…_bytes` is bytes; `…_seconds` seconds; `…_ratio` a ratio (drawn as %); `…_percent` a percentage.
 * - `rate()` / `irate()` of a counter is per second: `…_bytes_total` gives bytes/s, a counter of no
 *   unit (`…_total`, `…_count`) gives `/s`; of `…_seconds_total`, seconds per second (CPU cores): no unit.
 *   `increase()` keeps the counter's unit (a count over its window, not per second).
 * - `histogram_quantile(…, rate(x_seconds_bucket[…]))` is seconds; `…_sum / …_count` of one family its unit;
 *   `a_bytes / b_bytes` (any two of one unit) a ratio; a ratio `* 100` a percentage; any other
 *   arithmetic between two metrics, or by a number other than that, gives no unit.
 *
 * No unit: the axis writes plain numbers with SI prefixes (k, M, G, T).
 */
export type Unit = "bytes" | "bytes/s" | "seconds" | "ratio" | "percent" | "/s";

type Base = "bytes" | "seconds" | "ratio" | "percent";

/**
 * The unit a metric name ends in, and its counter / histogram suffix. Tested on each name alone (names()):
 * every pattern here runs in time linear in the query, whatever its 20,000 characters hold.
 */
const UNIT_SUFFIX = /_(bytes|seconds|ratio|percent)(?:_(total|sum|count|bucket))?$/;
/** A counter of no unit, or a histogram's count (events). */
const COUNTER_SUFFIX = /_(?:total|count)$/;
/** The names in an expression: metrics, functions, labels (only metrics end in a unit or a counter's suffix). */
const NAME = /[a-zA-Z_:][a-zA-Z0-9_:]*/g;

function names(text: string): string[] {
  return text.match(NAME) ?? [];
}

/** The unit of `query`'s values (undefined: plain numbers). */
export function unitOfQuery(query: string): Unit | undefined {
  const text = withoutStrings(query);
  const factors = topLevelSplit(text, "*");
  if (factors.length === 2) {
    const [left, right] = factors as [string, string];
    const ratio = NUMBER.test(right) ? left : NUMBER.test(left) ? right : undefined;
    const hundred = Number((NUMBER.test(right) ? right : left).replace(/[\s()]/g, "")) === 100;
    return ratio !== undefined && hundred && unitOfQuotient(ratio) === "ratio" ? "percent" : undefined;
  }
  if (factors.length > 2) return undefined;
  return unitOfQuotient(text);
}

/** A number alone (in brackets or not). */
const NUMBER = {
  test: (text: string) => /^[+-]?\d[\d.e+-]*$/i.test(text.replace(/[\s()]/g, "")),
};

/** The unit of an expression of no top-level product. */
function unitOfQuotient(expression: string): Unit | undefined {
  const text = unwrapped(expression);
  const parts = topLevelSplit(text, "/");
  if (parts.length === 1) return unitOfTerm(text);
  return parts.length === 2 ? quotient(parts[0] as string, parts[1] as string) : undefined;
}

/** The unit of an expression of no top-level division or product. */
function unitOfTerm(text: string): Unit | undefined {
  const perSecond = /\b(?:i?rate|deriv)\s*\(/.test(text) && !/\bhistogram_quantile\s*\(/.test(text);
  const all = names(text);
  const units = all
    .map((name) => UNIT_SUFFIX.exec(name))
    .filter((match): match is RegExpExecArray => match !== null);
  const bases = new Set(units.map((match) => match[1] as Base));
  if (bases.size > 1) return undefined;
  if (bases.size === 0) return perSecond && all.some((name) => COUNTER_SUFFIX.test(name)) ? "/s" : undefined;
  const base = [...bases][0] as Base;
  const suffix = units[0]?.[2];
  if (!perSecond) return suffix === "count" ? undefined : (base as Unit);
  if (suffix === "count") return "/s";
  return base === "bytes" ? "bytes/s" : undefined;
}

/** `a / b`: a family's sum over its count, a ratio of two of one unit, or `a`'s unit over a number. */
function quotient(top: string, bottom: string): Unit | undefined {
  if (NUMBER.test(bottom)) return unitOfTerm(top);
  const family = (text: string, suffix: string) =>
    names(text)
      .find((name) => name.endsWith(`_${suffix}`))
      ?.slice(0, -suffix.length - 1);
  const sum = family(top, "sum");
  if (sum !== undefined && sum === family(bottom, "count")) return unitOfTerm(sum);
  const [over, under] = [unitOfTerm(top), unitOfTerm(bottom)];
  if (over !== undefined && over === under) return "ratio";
  return undefined;
}

/** Quoted label values and matchers left out: `{path="/api/x_bytes"}` states no unit, nor a division. */
function withoutStrings(query: string): string {
  return query.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
}

const MAX_UNWRAPS = 8;

/** `text` without the brackets around all of it: `((a / b))` is `a / b`. */
function unwrapped(text: string): string {
  let inner = text.trim();
  // A few brackets deep at most: each look is linear in the text.
  for (let depth = 0; depth < MAX_UNWRAPS && inner.startsWith("(") && inner.endsWith(")"); depth++) {
    const body = inner.slice(1, -1);
    if (!balanced(body)) break;
    inner = body.trim();
  }
  return inner;
}

/** Whether no bracket in `text` closes one it did not open. */
function balanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    if ("([{".includes(char)) depth++;
    else if (")]}".includes(char) && --depth < 0) return false;
  }
  return depth === 0;
}

/** `text` split at `operator` outside brackets. */
function topLevelSplit(text: string, operator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) depth--;
    else if (char === operator && depth === 0) {
      parts.push(text.slice(from, at));
      from = at + 1;
    }
  }
  parts.push(text.slice(from));
  return parts;
}
