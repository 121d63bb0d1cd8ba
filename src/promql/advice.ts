/**
 * What to ask instead when an answer had to be cut to fit the model's token budget.
 *
 * Advice is built from the parsed query rather than its text, because a rewrite that looks right as text is
 * often wrong as PromQL: summing quantiles or ratios, re-wrapping an aggregation in itself, asking for
 * `topk(10, …)` of ten series. Every rewrite keeps the caller's sub-expressions verbatim (sliced from the
 * source by node positions) so `offset`, `@`, subqueries, comments and spacing survive, and every rewrite is
 * parsed again before it is offered.
 *
 * This module gathers the rules' suggestions and advises a larger step; the rules: adviceAggregate.ts
 * (regroup), adviceRules.ts (top k, filter, narrow); what they share: adviceContext.ts.
 */

import { aggregateSuggestion } from "./adviceAggregate.js";
import { type AdviceFacts, type Ctx, planLabels, type Suggestion } from "./adviceContext.js";
import { filterSuggestion, narrowSuggestion, topkSuggestion } from "./adviceRules.js";
import { loadPromql, parseClean } from "./syntax.js";

const MAX_SUGGESTIONS = 4;

/**
 * Suggestions for a cut answer, built from the parsed query; an empty list when nothing useful and valid
 * can be said. Never throws: when the parser cannot be loaded or the query does not parse, only the advice
 * that needs no parsing (a larger step) is given.
 *
 * @example
 * ```ts
 * await advise({
 *   query: "histogram_quantile(0.99, rate(http_request_duration_seconds_bucket[5m]))",
 *   seriesTotal: 120,
 *   varyingLabels: [{ name: "namespace", distinct: 3 }, { name: "pod", distinct: 120 }],
 *   order: "highest",
 * });
 * // [
 * //   { kind: "aggregate", text: "compute the quantile from summed buckets per namespace: at most 3 series instead of 120",
 * //     query: "histogram_quantile(0.99, sum by (le, namespace) (rate(http_request_duration_seconds_bucket[5m])))" },
 * //   { kind: "topk", text: "keep only the 10 highest series",
 * //     query: "topk(10, histogram_quantile(0.99, rate(http_request_duration_seconds_bucket[5m])))" },
 * // ]
 * ```
 */
export async function advise(facts: AdviceFacts): Promise<Suggestion[]> {
  const step = stepSuggestion(facts);
  const first = step ? [step] : [];
  try {
    const { parser } = await loadPromql();
    const expr = parseClean(parser, facts.query);
    if (!expr) return first;
    const ctx: Ctx = { src: facts.query, facts, plan: planLabels(facts) };
    const candidates = [
      ...first,
      guard(() => narrowSuggestion(expr, ctx)),
      guard(() => aggregateSuggestion(expr, ctx)),
      guard(() => topkSuggestion(expr, ctx)),
      guard(() => filterSuggestion(expr, ctx)),
    ];
    return candidates
      .filter((s): s is Suggestion => s !== undefined)
      .filter((s) => s.query === undefined || parseClean(parser, s.query) !== undefined)
      .slice(0, MAX_SUGGESTIONS);
  } catch {
    return first;
  }
}

// One faulty rule must not cost the others.
function guard(build: () => Suggestion | undefined): Suggestion | undefined {
  try {
    return build();
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Step

function stepSuggestion(facts: AdviceFacts): Suggestion | undefined {
  const { range, fittingStepSeconds: fitting } = facts;
  if (!range || fitting === undefined || !Number.isFinite(fitting) || fitting <= range.stepSeconds) {
    return undefined;
  }
  return { kind: "step", text: `use step=${formatDuration(fitting)}, at which the whole answer fits` };
}

const DURATION_UNITS: ReadonlyArray<[string, number]> = [
  ["y", 365 * 24 * 3600 * 1000],
  ["w", 7 * 24 * 3600 * 1000],
  ["d", 24 * 3600 * 1000],
  ["h", 3600 * 1000],
  ["m", 60 * 1000],
  ["s", 1000],
  ["ms", 1],
];

/**
 * Seconds as a Prometheus duration, the way Prometheus itself prints one (`90` → `1m30s`, `86400` → `1d`),
 * so the model can pass it straight back as `step`.
 */
export function formatDuration(seconds: number): string {
  let ms = Math.round(seconds * 1000);
  if (ms <= 0) return "0s";
  let out = "";
  for (const [unit, size] of DURATION_UNITS) {
    const count = Math.floor(ms / size);
    if (count > 0) out += `${count}${unit}`;
    ms -= count * size;
  }
  return out;
}
