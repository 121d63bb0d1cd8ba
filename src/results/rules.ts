/**
 * Recording and alerting rules as Prometheus's `/api/v1/rules` answers them (`data.groups[].rules[]`), made
 * into one flat, compact entry per rule for the model, filtered, ordered, and tallied for the note of a cut list.
 */

import { formatDuration } from "../promql/advice.js";
import { isPlainObject } from "../util/json.js";
import { isSetTime } from "./alerts.js";
import { formatCount } from "./fit.js";
import { compareCodePoints, comparePairs, labelSet, sortedPairs } from "./labelSets.js";
import { explainRuleError } from "./ruleErrors.js";

/**
 * One rule, with the name of its group. Field names are Prometheus's, except `for` (Prometheus's `duration`,
 * in seconds) which is the rule file's name for it, written as a duration (`5m`) the way the file has it.
 * Optional fields are left out when empty.
 *
 * `file` (the group's rule file) is given only on a rule whose health is `err`, next to its `lastError`:
 * that is where the fix goes. On every rule it would repeat the same long path once per rule of the group
 * (a 40-rule group pays for it 40 times), and `group` already tells the rules apart for reading.
 *
 * @example
 * ```ts
 * {
 *   group: "kubernetes-apps", name: "KubePodCrashLooping", type: "alerting",
 *   query: 'max_over_time(kube_pod_container_status_waiting_reason{reason="CrashLoopBackOff"}[5m]) >= 1',
 *   for: "15m", labels: { severity: "warning" }, annotations: { summary: "Pod is crash looping." },
 *   health: "ok", lastEvaluation: "2023-03-01T10:02:13.52143122Z", state: "firing", alerts: 2,
 * }
 * ```
 */
export interface RuleEntry {
  group: string;
  file?: string;
  name: string;
  type: "alerting" | "recording";
  query: string;
  /** How long the condition must hold before the alert fires (alerting rules; Prometheus's `duration`). */
  for?: string;
  /** How long the alert keeps firing after the condition is gone (alerting rules, Prometheus ≥ 2.42). */
  keepFiringFor?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** `ok`, `err` or `unknown` (not evaluated yet). */
  health: string;
  lastError?: string;
  /** What `lastError` means and implies, in one plain line, for the errors known (src/results/ruleErrors.ts). */
  error_means?: string;
  lastEvaluation?: string;
  /** Alerting rules: `firing`, `pending` or `inactive`. */
  state?: string;
  /** Alerting rules: how many alerts the rule has now (pending and firing). */
  alerts?: number;
  /** Alerting rules: the recording rules the expression reads (src/results/ruleDependencies.ts). */
  depends_on?: RuleDependency[];
  /** Only ever `false`: a recording rule the alert needs fails or has no series (`why` says which). */
  can_fire?: false;
  why?: string;
}

/** One recording rule an alerting rule reads (see src/results/ruleDependencies.ts). */
export interface RuleDependency {
  name: string;
  /** The recording rule's health (the worst, when several rules record the name). */
  health: string;
  /** Whether the recorded metric has series now; left out when that could not be asked. */
  has_series?: boolean;
}

/**
 * Which rules to keep, by exact matches, as the `/api/v1/rules` parameters `type`, `rule_name[]` and
 * `rule_group[]` mean them: a rule passes when each filter given matches it.
 */
export interface RuleFilter {
  type?: "alert" | "record" | undefined;
  /** `ok`, `err` or `unknown`: a filter Prometheus's API has none of (matched here). */
  health?: string | undefined;
  names?: readonly string[] | undefined;
  groups?: readonly string[] | undefined;
}

const TYPE_OF_FILTER = { alert: "alerting", record: "recording" } as const;

/**
 * The rules of one element of `data.groups` that pass `filter`, in Prometheus's order; none when the group
 * is not an object with a string `name` and a `rules` array. A rule without a string `name` and `query` or
 * without type `alerting`/`recording` is left out.
 */
export function ruleEntries(group: unknown, filter: RuleFilter): RuleEntry[] {
  if (!isPlainObject(group) || typeof group.name !== "string" || !Array.isArray(group.rules)) return [];
  if (filter.groups && !filter.groups.includes(group.name)) return [];
  const file = typeof group.file === "string" ? group.file : "";
  const entries: RuleEntry[] = [];
  for (const raw of group.rules) {
    const entry = ruleEntry(raw, group.name, file);
    if (entry && ruleMatches(entry, filter)) entries.push(entry);
  }
  return entries;
}

/** Whether `entry` passes every filter `filter` gives. */
export function ruleMatches(entry: RuleEntry, filter: RuleFilter): boolean {
  const type = filter.type && TYPE_OF_FILTER[filter.type];
  return (
    (!type || entry.type === type) &&
    (!filter.names || filter.names.includes(entry.name)) &&
    (!filter.groups || filter.groups.includes(entry.group)) &&
    (!filter.health || entry.health === filter.health)
  );
}

function ruleEntry(raw: unknown, group: string, file: string): RuleEntry | undefined {
  if (!isPlainObject(raw) || typeof raw.name !== "string" || typeof raw.query !== "string") return undefined;
  const type = raw.type;
  if (type !== "alerting" && type !== "recording") return undefined;
  const alerting = type === "alerting";
  const health = typeof raw.health === "string" ? raw.health : "unknown";
  const lastError = typeof raw.lastError === "string" && raw.lastError !== "" ? raw.lastError : undefined;
  const errorMeans = lastError && explainRuleError(lastError, type);
  const labels = nonEmpty(labelSet(raw.labels));
  const annotations = nonEmpty(labelSet(raw.annotations));
  const forDuration = alerting ? duration(raw.duration) : undefined;
  const keepFiringFor = alerting ? duration(raw.keepFiringFor) : undefined;
  return {
    group,
    ...(health === "err" && file !== "" ? { file } : {}),
    name: raw.name,
    type,
    query: raw.query,
    ...(forDuration ? { for: forDuration } : {}),
    ...(keepFiringFor ? { keepFiringFor } : {}),
    ...(labels ? { labels } : {}),
    ...(annotations ? { annotations } : {}),
    health,
    ...(lastError ? { lastError } : {}),
    ...(errorMeans ? { error_means: errorMeans } : {}),
    ...(isSetTime(raw.lastEvaluation) ? { lastEvaluation: raw.lastEvaluation } : {}),
    ...(alerting && typeof raw.state === "string" && raw.state !== "" ? { state: raw.state } : {}),
    ...(alerting && Array.isArray(raw.alerts) ? { alerts: raw.alerts.length } : {}),
  };
}

function nonEmpty(labels: Record<string, string> | undefined): Record<string, string> | undefined {
  return labels && Object.keys(labels).length > 0 ? labels : undefined;
}

/** Seconds (Prometheus's `duration`, `keepFiringFor`) as a duration like `5m` or `1m30s`; none for 0 or absent. */
function duration(seconds: unknown): string | undefined {
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0
    ? formatDuration(seconds)
    : undefined;
}

const TYPE_RANK = { alerting: 0, recording: 1 } as const;

/**
 * The order of a rule list: by group, then by name (code-point order), then alerting before recording, then
 * by query; the label sets, then the other fields, break any tie left (two groups of the same name in
 * different files may hold the same rule), so the order is total and deterministic.
 */
export function compareRules(a: RuleEntry, b: RuleEntry): number {
  return (
    compareCodePoints(a.group, b.group) ||
    compareCodePoints(a.name, b.name) ||
    (TYPE_RANK[a.type] ?? 2) - (TYPE_RANK[b.type] ?? 2) ||
    compareCodePoints(a.query, b.query) ||
    comparePairs(sortedPairs(a.labels ?? {}), sortedPairs(b.labels ?? {})) ||
    compareCodePoints(JSON.stringify(a), JSON.stringify(b))
  );
}

/** Names of rules with errors kept for the note: the first ones suffice to start fixing. */
const MAX_ERRORS_KEPT = 100;
/** Group names counted at most. */
const MAX_GROUPS = 10_000;

const HEALTH_ORDER = ["ok", "err", "unknown"];
const STATE_ORDER = ["firing", "pending", "inactive"];

/**
 * What a rule list held, for the note of a cut list: rules per health, alerting rules per state, the number
 * of groups (by name), and the first rules with errors.
 */
export class RuleTally {
  /** Rules added. */
  total = 0;
  readonly health = new Map<string, number>();
  /** Alerting rules per state. */
  readonly states = new Map<string, number>();
  /** Rules whose health is `err`. */
  errors = 0;
  /** The names of the first MAX_ERRORS_KEPT rules whose health is `err`, each once, in the order added. */
  readonly erring: string[] = [];
  private readonly groupNames = new Set<string>();
  private groupsDropped = false;

  add(entry: RuleEntry): void {
    this.total++;
    increment(this.health, entry.health);
    if (entry.state !== undefined) increment(this.states, entry.state);
    if (this.groupNames.size < MAX_GROUPS || this.groupNames.has(entry.group)) {
      this.groupNames.add(entry.group);
    } else {
      this.groupsDropped = true;
    }
    if (entry.health === "err") {
      this.errors++;
      if (this.erring.length < MAX_ERRORS_KEPT && !this.erring.includes(entry.name)) {
        this.erring.push(entry.name);
      }
    }
  }

  /** Distinct group names (a lower bound past MAX_GROUPS: see `groupsAtLeast`). */
  get groups(): number {
    return this.groupNames.size;
  }

  get groupsAtLeast(): boolean {
    return this.groupsDropped;
  }

  /**
   * The tally in words for a note, naming at most `max` rules with errors:
   * `52 rules in 6 groups: ok 50, err 2; alerting rules: firing 3, pending 1, inactive 30; with errors: A, B`.
   * Empty when nothing was added.
   */
  words(max: number): string {
    if (this.total === 0) return "";
    const groups = `${this.groupsDropped ? "at least " : ""}${formatCount(this.groups)} group${this.groups === 1 ? "" : "s"}`;
    const parts = [
      `${formatCount(this.total)} rule${this.total === 1 ? "" : "s"} in ${groups}: ${counts(this.health, HEALTH_ORDER)}`,
    ];
    if (this.states.size > 0) parts.push(`alerting rules: ${counts(this.states, STATE_ORDER)}`);
    const named = this.erring.slice(0, Math.max(0, max));
    if (named.length > 0) {
      // The health counts already say how many: a name can repeat across groups and is named once.
      const more = this.errors > named.length ? " and others" : "";
      parts.push(`with errors: ${named.join(", ")}${more}`);
    }
    return parts.join("; ");
  }
}

/** The tally of `entries` (see RuleTally). */
export function ruleSummary(entries: Iterable<RuleEntry>): RuleTally {
  const tally = new RuleTally();
  for (const entry of entries) tally.add(entry);
  return tally;
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** `ok 50, err 2, unknown 1`: the known keys in `order`, then any other by name. */
function counts(map: ReadonlyMap<string, number>, order: readonly string[]): string {
  const rank = (key: string) => {
    const at = order.indexOf(key);
    return at === -1 ? order.length : at;
  };
  return [...map]
    .sort((a, b) => rank(a[0]) - rank(b[0]) || compareCodePoints(a[0], b[0]))
    .map(([key, count]) => `${key} ${formatCount(count)}`)
    .join(", ");
}
