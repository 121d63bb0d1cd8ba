/**
 * What an alerting rule depends on: the recording rules its expression reads (by parsing it, see
 * metricReadsOf), each with its health and whether it has series now, and from those whether the alert
 * can fire at all. A recording rule that fails stores nothing new and one without series gives the
 * alert nothing to compare: an alert that needs it is dead while it looks `health: ok, inactive`.
 */

import { type MetricRead, metricReadsOf } from "../promql/selectors.js";
import type { PromqlModule } from "../promql/syntax.js";
import { compareCodePoints } from "./labelSets.js";
import type { RuleDependency, RuleEntry } from "./rules.js";

const HEALTH_RANK: Readonly<Record<string, number>> = { err: 0, unknown: 1, ok: 2 };
const rank = (health: string) => HEALTH_RANK[health] ?? 1;

/** The longest error quoted in `why`: the rule's own entry has it whole. */
const MAX_ERROR_IN_WHY = 200;

/** The recording rules of a rules answer by the name they record, from every group (filtered out or not). */
export class RecordingRules {
  private readonly byName = new Map<string, { health: string; lastError?: string | undefined }>();

  /** Notes a rule (alerting rules are ignored); a name recorded twice keeps its worst health and error. */
  add(entry: RuleEntry): void {
    if (entry.type !== "recording") return;
    const known = this.byName.get(entry.name);
    if (known === undefined || rank(entry.health) < rank(known.health)) {
      this.byName.set(entry.name, { health: entry.health, lastError: entry.lastError });
    }
  }

  get(name: string): { health: string; lastError?: string | undefined } | undefined {
    return this.byName.get(name);
  }
}

/**
 * The dependencies of the alerting rules of one rules answer, gathered while it streams: every rule is
 * `seen` (a recording rule counts wherever it is, in a group filtered out too), the alerting rules listed
 * are parsed once each; `present` then gives a listed rule its `depends_on` (see withDependencies).
 */
export class RuleDependencies {
  readonly recordings = new RecordingRules();
  /** What each listed alerting rule reads (weakly held: a rule not kept is let go). */
  private readonly reads = new WeakMap<RuleEntry, MetricRead[]>();
  private readonly metricsRead = new Set<string>();

  constructor(private readonly promql: PromqlModule) {}

  /** Every rule of the answer, listed or not. */
  see(entry: RuleEntry): void {
    this.recordings.add(entry);
  }

  /** A rule that is listed: an alerting rule's expression is parsed for the metrics it reads. */
  listed(entry: RuleEntry): void {
    if (entry.type !== "alerting") return;
    const reads = metricReadsOf(this.promql, entry.query) ?? [];
    this.reads.set(entry, reads);
    for (const read of reads) this.metricsRead.add(read.metric);
  }

  /** The recording rules the listed alerting rules read, whose series to look up (none: no query). */
  recordingsRead(): string[] {
    return [...this.metricsRead].filter((metric) => this.recordings.get(metric) !== undefined);
  }

  /** A listed rule with its dependencies; `series`: the names of recordingsRead() that have series now. */
  present(entry: RuleEntry, series: ReadonlySet<string> | undefined): RuleEntry {
    const reads = this.reads.get(entry);
    return reads === undefined ? entry : withDependencies(entry, reads, this.recordings, series);
  }
}

/**
 * The one instant query that tells which of `names` have series now: `group by (__name__)
 * ({__name__=~"a|b"})`, one sample per name that has any (names regex-escaped: a recording rule's `:` is
 * plain, a UTF-8 name may hold `.`).
 */
export function seriesQuery(names: readonly string[]): string {
  const alternatives = [...names]
    .sort(compareCodePoints)
    .map((name) => name.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&"));
  return `group by (__name__) ({__name__=~${JSON.stringify(alternatives.join("|"))}})`;
}

/** The `__name__` of one element of an instant query's `result`, if it has one. */
export function seriesName(element: unknown): string | undefined {
  const metric = (element as { metric?: unknown } | null)?.metric;
  const name = (metric as { __name__?: unknown } | null | undefined)?.__name__;
  return typeof name === "string" ? name : undefined;
}

/**
 * `entry` (an alerting rule) with `depends_on`: the recording rules it reads, in the order written, with
 * their health and, when `series` is known (the names that have series now), `has_series`. It gains
 * `can_fire: false` and `why` when a recording rule it needs (see MetricRead.required) fails or has no
 * series; nothing is added when it reads no recording rule.
 */
export function withDependencies(
  entry: RuleEntry,
  reads: readonly MetricRead[],
  recordings: RecordingRules,
  series: ReadonlySet<string> | undefined,
): RuleEntry {
  const dependsOn: RuleDependency[] = [];
  const reasons: string[] = [];
  for (const read of reads) {
    const rule = recordings.get(read.metric);
    if (rule === undefined) continue;
    const hasSeries = series?.has(read.metric);
    dependsOn.push({ name: read.metric, health: rule.health, ...(series ? { has_series: hasSeries } : {}) });
    if (!read.required) continue;
    if (rule.health === "err") {
      const error = rule.lastError ? `: ${shortened(rule.lastError)}` : "";
      reasons.push(`reads ${read.metric}, whose evaluation fails${error}`);
    } else if (hasSeries === false) {
      reasons.push(`reads ${read.metric}, which has no series now`);
    }
  }
  if (dependsOn.length === 0) return entry;
  return {
    ...entry,
    depends_on: dependsOn,
    ...(reasons.length > 0 ? { can_fire: false, why: reasons.join("; ") } : {}),
  };
}

function shortened(text: string): string {
  return text.length <= MAX_ERROR_IN_WHY ? text : `${text.slice(0, MAX_ERROR_IN_WHY - 1)}…`;
}
