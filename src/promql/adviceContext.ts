// What every advice rule (advice.ts) reads and returns: the facts of the cut answer, the suggestion, the
// labels to group by (the plan), the rules' context, and a rewrite of one node.

import { labelToken } from "./syntax.js";

/** What the cut answer looked like; everything here is known after the cut without re-querying. */
export interface AdviceFacts {
  /** The caller's PromQL, exactly as asked. */
  query: string;
  /** A range query's step and length in seconds; undefined for an instant query. */
  range?: { stepSeconds: number; rangeSeconds: number } | undefined;
  /** How many series (range) or samples (instant) Prometheus answered. */
  seriesTotal: number;
  /** Labels whose values differ between the answer's series (never `__name__`), each with its number of distinct values, fewest first. */
  varyingLabels: ReadonlyArray<{ name: string; distinct: number }>;
  /** Range queries: the smallest step in seconds (a whole multiple of the asked step) at which the whole answer would fit the budget; undefined when no step would (too many series for any step). */
  fittingStepSeconds?: number | undefined;
  /** How the cut ordered the series: most unusual first, highest first, or lowest first. */
  order: "unusual" | "highest" | "lowest";
  /** A label value the most unusual (or highest/lowest) series share, worth narrowing the matchers to. */
  focus?: { name: string; value: string } | undefined;
}

/** One thing to ask instead: `text` is short plain words for the model, `query` (when set) a valid PromQL expression it can run as is. */
export interface Suggestion {
  kind: "aggregate" | "topk" | "bottomk" | "filter" | "step" | "narrow";
  text: string;
  query?: string;
}
// ---------------------------------------------------------------------------------------------------------
// Parsing helpers

interface LabelPlan {
  /** The label to group by: fewest distinct values, at least 2 and fewer than the series; never `le`. */
  chosen: { name: string; distinct: number } | undefined;
  /** Labels for `sum by (…)` of plain series; undefined when summing would mix buckets or quantiles wrongly. */
  sumBy: string[] | undefined;
}

export interface Ctx {
  src: string;
  facts: AdviceFacts;
  plan: LabelPlan;
}

/** A rewrite of one node. `summed` marks a plain `sum by` around it, which only linear wrappers may carry. */
export interface Rewrite {
  text: string;
  summed: boolean;
  how: string;
  groups: string[];
}

// ---------------------------------------------------------------------------------------------------------
// Labels

export function planLabels(facts: AdviceFacts): LabelPlan {
  const usable = facts.varyingLabels
    .filter((l) => l.name !== "__name__" && l.distinct >= 2 && l.distinct < facts.seriesTotal)
    .sort((a, b) => a.distinct - b.distinct);
  const chosen = usable.find((l) => l.name !== "le");
  return { chosen, sumBy: sumGrouping(facts, chosen) };
}

/**
 * Summing across `le` buckets or across summary `quantile`s gives numbers that mean nothing, so a plain
 * sum must keep `le` and is not offered at all when the series differ by `quantile`.
 */
function sumGrouping(facts: AdviceFacts, chosen: LabelPlan["chosen"]): string[] | undefined {
  const find = (name: string) => facts.varyingLabels.find((l) => l.name === name);
  if (find("quantile")) return undefined;
  const le = find("le");
  if (!le) return chosen ? [chosen.name] : undefined;
  if (chosen && le.distinct * chosen.distinct < facts.seriesTotal) return ["le", chosen.name];
  return le.distinct < facts.seriesTotal ? ["le"] : undefined;
}

export function distinctOf(ctx: Ctx, name: string): number {
  return ctx.facts.varyingLabels.find((l) => l.name === name)?.distinct ?? 1;
}

export function byClause(labels: readonly string[]): string {
  return `by (${labels.map(labelToken).join(", ")})`;
}
