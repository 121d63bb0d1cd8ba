/**
 * What is wrong with a set of rules, for an overview: the rules that fail, grouped by error with what the
 * error means, and the alerting rules that cannot fire. Takes entries as ListRules gives them (ruleEntries,
 * then RuleDependencies.present for `depends_on`/`can_fire`), so both tools say the same.
 */

import { compareCodePoints } from "./labelSets.js";
import type { RuleEntry } from "./rules.js";

/** Rules failing with one error. */
export interface FailingRules {
  /** Prometheus's `lastError`, as reported (untrusted data). */
  error: string;
  /** What it means and implies (src/results/ruleErrors.ts); left out for an error not known there. */
  means?: string;
  /** The failing rules' names, each once, alerting rules first (by severity), then by name. */
  rules: string[];
  /** The alerting rules that cannot fire because they read one of these rules; left out when none. */
  blocks?: string[];
}

/** An alerting rule that cannot fire, and why. */
export interface UnfireableAlert {
  name: string;
  /** The rule's `severity` label, if it has one. */
  severity?: string;
  why: string;
}

export interface RuleFindings {
  /** Most severe first: the error of the most severe alerting rule failing or blocked, then most rules. */
  failing: FailingRules[];
  /** Most severe first, then by name. */
  cannot_fire: UnfireableAlert[];
}

/** Severity label values, most severe first; a value not listed ranks between warning and info. */
const SEVERITY_ORDER = [
  "critical",
  "page",
  "high",
  "error",
  "major",
  "warning",
  "minor",
  "low",
  "info",
  "none",
];
const UNLISTED_RANK = SEVERITY_ORDER.indexOf("warning") + 0.5;
/** A rule without severity (a recording rule) ranks after every severity. */
const NO_SEVERITY_RANK = SEVERITY_ORDER.length;

/** The rank of a severity label (smaller is more severe); undefined ranks after every severity. */
export function severityRank(severity: string | undefined): number {
  if (severity === undefined) return NO_SEVERITY_RANK;
  const at = SEVERITY_ORDER.indexOf(severity.toLowerCase());
  return at === -1 ? UNLISTED_RANK : at;
}

const rankOf = (rule: RuleEntry) =>
  rule.type === "alerting" ? severityRank(rule.labels?.severity) : NO_SEVERITY_RANK;

/** The failing rules by error and the alerting rules that cannot fire, most severe first (see RuleFindings). */
export function ruleFindings(rules: Iterable<RuleEntry>): RuleFindings {
  const list = [...rules];
  const unfireable = list
    .filter((rule) => rule.type === "alerting" && rule.can_fire === false)
    .sort((a, b) => rankOf(a) - rankOf(b) || compareCodePoints(a.name, b.name));
  const groups = new Map<
    string,
    { error: string; means?: string; rules: RuleEntry[]; blocked: RuleEntry[] }
  >();
  for (const rule of list) {
    if (rule.health !== "err" || rule.lastError === undefined) continue;
    const key = JSON.stringify([rule.lastError, rule.error_means ?? ""]);
    const group = groups.get(key) ?? {
      error: rule.lastError,
      means: rule.error_means,
      rules: [],
      blocked: [],
    };
    group.rules.push(rule);
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    const names = new Set(group.rules.filter((rule) => rule.type === "recording").map((rule) => rule.name));
    group.blocked = unfireable.filter((alert) =>
      alert.depends_on?.some((dependency) => names.has(dependency.name) && dependency.health === "err"),
    );
  }
  const severest = (group: { rules: RuleEntry[]; blocked: RuleEntry[] }) =>
    Math.min(...[...group.rules, ...group.blocked].map(rankOf));
  const failing = [...groups.values()]
    .sort(
      (a, b) =>
        severest(a) - severest(b) || b.rules.length - a.rules.length || compareCodePoints(a.error, b.error),
    )
    .map((group) => ({
      error: group.error,
      ...(group.means ? { means: group.means } : {}),
      rules: uniqueNames(group.rules),
      ...(group.blocked.length > 0 ? { blocks: uniqueNames(group.blocked) } : {}),
    }));
  return {
    failing,
    cannot_fire: unfireable.map((rule) => ({
      name: rule.name,
      ...(rule.labels?.severity ? { severity: rule.labels.severity } : {}),
      why: rule.why ?? "",
    })),
  };
}

/** The rules' names, each once, most severe first, then by name. */
function uniqueNames(rules: readonly RuleEntry[]): string[] {
  const sorted = [...rules].sort((a, b) => rankOf(a) - rankOf(b) || compareCodePoints(a.name, b.name));
  return [...new Set(sorted.map((rule) => rule.name))];
}
