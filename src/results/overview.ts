/**
 * GetHealthOverview's answer: "what is wrong right now?" on one screen. Alerts grouped by alertname with
 * their onset and Alertmanager's status, the silences that match nothing, the rules that fail or cannot
 * fire, the targets down, how far back the data goes, and what could not be seen. Pure: the tool reads,
 * this module arranges and cuts (most severe and most recent first).
 */

import type { AlertmanagerStatus, InhibitorRef, SilenceRef } from "./alertmanagerStatus.js";
import { compareInstants } from "./alerts.js";
import type { DataRange } from "./dataRange.js";
import { type Budget, type Fittable, type Fitted, fitsIn, formatCount, type Layout, Measure } from "./fit.js";
import { compareCodePoints, type Labels, labelValue } from "./labelSets.js";
import type { FailingRules, UnfireableAlert } from "./ruleFindings.js";
import { severityRank } from "./ruleFindings.js";
import type { TargetNotUp } from "./targets.js";

/** One alert as the overview reads it: ListAlerts' fields, onset and Alertmanager's status joined. */
export interface OverviewAlert {
  labels: Labels;
  annotations?: Record<string, string>;
  state: string;
  activeAt?: string;
  value?: string;
  onset?: string;
  status?: AlertmanagerStatus;
}

/** A silence active now that matches no alert (it mutes nothing today: stale, or aimed wrong). */
export interface IdleSilence {
  id: string;
  matchers: string[];
  created_by?: string;
  comment?: string;
  ends_at?: string;
}

/** Everything read, each part or why it is missing. */
export interface OverviewParts {
  /** The server's clock at the call, RFC 3339. */
  at: string;
  alerts: OverviewAlert[];
  /** How many alerts Prometheus listed (more than `alerts` when it listed more than were read). */
  alertsTotal: number;
  /** Active silences in all; undefined when Alertmanager was not read. */
  activeSilences?: number;
  idleSilences: IdleSilence[];
  failing: FailingRules[];
  cannotFire: UnfireableAlert[];
  /** Undefined when the targets were not seen (see notSeen.targets). */
  targets?: { notUp: TargetNotUp[]; notUpTotal: number; total: number };
  data?: DataRange;
  /** Part → why it is missing: alertmanager, onsets, rules, targets, data. */
  notSeen: Record<string, string>;
}

/** How much of each list is shown; cutting lowers these until the answer fits. */
interface Shown {
  groups: number;
  /** Alerts listed per group (labels that tell them apart, onset, value, status). */
  perGroup: number;
  /** Items of every other list (silences, failing rules, targets…). */
  items: number;
  /** Characters of a summary annotation. */
  summaryChars: number;
}

/** What an answer shows when it fits: everything, a few alerts per group, summaries of a sentence or two. */
const WHOLE: Shown = { groups: Number.POSITIVE_INFINITY, perGroup: 5, items: 20, summaryChars: 240 };

/**
 * Each step of cutting, tried in order until one fits (the last always does, or nothing would). The other
 * lists and the alerts within groups shrink first; the groups go last, the least severe first, so the most
 * severe group stays while it fits on its own.
 */
const CUTS: readonly Shown[] = [
  WHOLE,
  { groups: 40, perGroup: 3, items: 10, summaryChars: 160 },
  { groups: 20, perGroup: 1, items: 5, summaryChars: 120 },
  { groups: 10, perGroup: 0, items: 3, summaryChars: 80 },
  { groups: 10, perGroup: 0, items: 1, summaryChars: 0 },
  { groups: 5, perGroup: 0, items: 0, summaryChars: 0 },
  { groups: 2, perGroup: 0, items: 0, summaryChars: 0 },
  { groups: 1, perGroup: 0, items: 0, summaryChars: 0 },
  { groups: 0, perGroup: 0, items: 0, summaryChars: 0 },
];

/** The overview as a result that cuts itself to the call's budget (see Fittable). */
export function overviewResult(parts: OverviewParts): Fittable {
  const groups = groupAlerts(parts.alerts);
  return {
    async fit(budget: Budget, layout: Layout): Promise<Fitted> {
      const measure = new Measure(layout);
      for (const shown of CUTS) {
        const value = overviewValue(parts, groups, shown);
        if (fitsIn(measure.of(value), budget) || shown === CUTS.at(-1)) return { value };
      }
      throw new Error("unreachable: the last cut is always returned");
    },
  };
}

/** Alerts of one alertname and state. */
export interface AlertGroup {
  alertname: string;
  state: string;
  severity?: string;
  alerts: OverviewAlert[];
}

/**
 * The alerts grouped by alertname and state: firing before pending, then the most severe, then the most
 * recent onset; within a group, the most recent onset first.
 */
export function groupAlerts(alerts: readonly OverviewAlert[]): AlertGroup[] {
  const byKey = new Map<string, AlertGroup>();
  for (const alert of alerts) {
    const alertname = labelValue(alert.labels, "alertname");
    const key = JSON.stringify([alertname, alert.state]);
    const group = byKey.get(key) ?? { alertname, state: alert.state, alerts: [] };
    group.alerts.push(alert);
    byKey.set(key, group);
  }
  const groups = [...byKey.values()];
  for (const group of groups) {
    group.alerts.sort(compareByOnset);
    const severities = group.alerts.map((alert) => labelValue(alert.labels, "severity")).filter(Boolean);
    const severest = severities.sort((a, b) => severityRank(a) - severityRank(b))[0];
    if (severest !== undefined) group.severity = severest;
  }
  return groups.sort(
    (a, b) =>
      stateRank(a.state) - stateRank(b.state) ||
      severityRank(a.severity) - severityRank(b.severity) ||
      compareByOnset(a.alerts[0] as OverviewAlert, b.alerts[0] as OverviewAlert) ||
      compareCodePoints(a.alertname, b.alertname),
  );
}

const stateRank = (state: string) => (state === "firing" ? 0 : state === "pending" ? 1 : 2);

function compareByOnset(a: OverviewAlert, b: OverviewAlert): number {
  return (
    compareInstants(a.onset ?? a.activeAt, b.onset ?? b.activeAt, "newest") ||
    compareCodePoints(JSON.stringify(a.labels), JSON.stringify(b.labels))
  );
}

function overviewValue(parts: OverviewParts, groups: readonly AlertGroup[], shown: Shown) {
  const cut: string[] = [];
  const list = <T>(items: readonly T[], max: number, what: string): T[] => {
    if (items.length > max)
      cut.push(`${formatCount(items.length - max)} of ${formatCount(items.length)} ${what}`);
    return items.slice(0, Math.max(0, max));
  };
  const alertGroups = list(groups, shown.groups, "alert groups").map((group) => groupValue(group, shown));
  if (groups.some((group) => group.alerts.length > shown.perGroup && shown.perGroup < WHOLE.perGroup))
    cut.push("alerts within groups");
  const idle = list(parts.idleSilences, shown.items, "idle silences");
  const failing = list(parts.failing, shown.items, "rule errors");
  const cannotFire = list(parts.cannotFire, shown.items, "alerting rules that cannot fire");
  const down = list(parts.targets?.notUp ?? [], shown.items, "targets not up");
  // A list cut to nothing is left out (the note says so), not written empty.
  const value = {
    summary: summaryOf(parts, groups),
    ...(alertGroups.length > 0 ? { alerts: alertGroups } : {}),
    ...(idle.length > 0 ? { silences_matching_no_alert: idle } : {}),
    ...(failing.length > 0 ? { failing_rules: failing } : {}),
    ...(cannotFire.length > 0 ? { cannot_fire: cannotFire } : {}),
    ...(down.length > 0 ? { targets_down: down } : {}),
    ...(parts.data !== undefined ? { data: parts.data } : {}),
    ...(Object.keys(parts.notSeen).length > 0 ? { not_seen: parts.notSeen } : {}),
  };
  if (cut.length === 0) return value;
  const truncated = {
    note: `Cut to fit this reply: ${cut.join(", ")} left out (most severe and most recent kept). ListAlerts, ListRules and ListSilences with match list them whole.`,
  };
  return { truncated, ...value };
}

/** One group as shown: what its alerts share, then each alert's own labels, onset, value and status. */
function groupValue(group: AlertGroup, shown: Shown) {
  const { alerts } = group;
  const first = alerts[0] as OverviewAlert;
  const common = commonLabels(alerts.map((alert) => alert.labels));
  // The severity every alert shares is shown once, as the group's.
  const { severity: _shared, ...shownCommon } = common;
  const labels = common.severity === group.severity ? shownCommon : common;
  const summary = first.annotations?.summary ?? first.annotations?.description;
  const onsets = alerts.map((alert) => alert.onset ?? alert.activeAt).filter((t): t is string => !!t);
  const earliest = onsets.sort((a, b) => compareInstants(a, b, "oldest"))[0];
  const statuses = statusCounts(alerts);
  const listed = alerts.slice(0, alerts.length === 1 ? 0 : shown.perGroup);
  return {
    alertname: group.alertname,
    state: group.state,
    ...(group.severity !== undefined ? { severity: group.severity } : {}),
    count: alerts.length,
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(summary !== undefined && shown.summaryChars > 0
      ? { summary: cutSummary(summary, shown.summaryChars) }
      : {}),
    ...(earliest !== undefined ? { onset: earliest } : {}),
    ...(alerts.length === 1 && first.value !== undefined ? { value: first.value } : {}),
    ...statuses,
    ...(listed.length > 0
      ? {
          instances: listed.map((alert) => ({
            labels: without(alert.labels, common),
            ...(alert.onset !== undefined ? { onset: alert.onset } : {}),
            ...(alert.value !== undefined ? { value: alert.value } : {}),
            ...(alert.status !== undefined && alert.status.alertmanager !== "active"
              ? { alertmanager: alert.status.alertmanager }
              : {}),
          })),
        }
      : {}),
  };
}

/**
 * Alertmanager's side of a group: one word when all its alerts share it, else a count per word; the
 * silences and inhibiting alerts named once each.
 */
function statusCounts(alerts: readonly OverviewAlert[]) {
  const counts = new Map<string, number>();
  const silences = new Map<string, SilenceRef>();
  const inhibitors = new Map<string, InhibitorRef>();
  for (const { status } of alerts) {
    if (status === undefined) continue;
    counts.set(status.alertmanager, (counts.get(status.alertmanager) ?? 0) + 1);
    for (const silence of status.silenced_by ?? []) silences.set(silence.id, silence);
    for (const inhibitor of status.inhibited_by ?? []) inhibitors.set(JSON.stringify(inhibitor), inhibitor);
  }
  const [only] = counts.keys();
  const word =
    counts.size === 0
      ? {}
      : counts.size === 1 && counts.get(only as string) === alerts.length
        ? { alertmanager: only }
        : { alertmanager: Object.fromEntries(counts) };
  return {
    ...word,
    ...(silences.size > 0 ? { silenced_by: [...silences.values()] } : {}),
    ...(inhibitors.size > 0 ? { inhibited_by: [...inhibitors.values()] } : {}),
  };
}

/** The labels every one of the sets has with the same value, but alertname (the group's name). */
function commonLabels(sets: readonly Labels[]): Labels {
  const [first, ...rest] = sets;
  if (first === undefined) return {};
  const common: Labels = {};
  for (const [name, value] of Object.entries(first)) {
    if (name === "alertname") continue;
    if (rest.every((labels) => Object.hasOwn(labels, name) && labels[name] === value)) common[name] = value;
  }
  return common;
}

function without(labels: Labels, common: Labels): Labels {
  return Object.fromEntries(
    Object.entries(labels).filter(([name]) => name !== "alertname" && !Object.hasOwn(common, name)),
  );
}

function cutSummary(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}

/** The whole picture in one line: what fires, what is muted, what is broken, what could not be seen. */
function summaryOf(parts: OverviewParts, groups: readonly AlertGroup[]): string {
  const count = (state: string) =>
    groups.filter((group) => group.state === state).reduce((sum, group) => sum + group.alerts.length, 0);
  const firing = count("firing");
  const pending = count("pending");
  const muted = parts.alerts.filter(
    (alert) => alert.status?.alertmanager === "silenced" || alert.status?.alertmanager === "inhibited",
  ).length;
  const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;
  const unread =
    parts.alertsTotal > parts.alerts.length
      ? ` (${formatCount(parts.alertsTotal)} listed by Prometheus, the first ${formatCount(parts.alerts.length)} read)`
      : "";
  const failingRules = parts.failing.reduce((sum, group) => sum + group.rules.length, 0);
  const words = [
    `${plural(firing, "alert")} firing${muted > 0 ? ` (${formatCount(muted)} silenced or inhibited)` : ""}, ${formatCount(pending)} pending${unread}`,
    failingRules > 0 ? `${plural(failingRules, "rule")} failing` : "no rule failing",
    parts.cannotFire.length > 0 ? `${plural(parts.cannotFire.length, "alerting rule")} cannot fire` : "",
    parts.targets !== undefined
      ? `${formatCount(parts.targets.notUpTotal)} of ${plural(parts.targets.total, "target")} not up`
      : "",
    silencesWords(parts.activeSilences, parts.idleSilences.length),
    Object.keys(parts.notSeen).length > 0 ? `not seen: ${Object.keys(parts.notSeen).join(", ")}` : "",
  ];
  return `${words.filter(Boolean).join("; ")}.`;
}

/** `3 active silences (1 matching no alert)`; nothing when Alertmanager was not read. */
function silencesWords(active: number | undefined, idle: number): string {
  if (active === undefined) return "";
  const words = `${formatCount(active)} active silence${active === 1 ? "" : "s"}`;
  return idle > 0 ? `${words} (${formatCount(idle)} matching no alert)` : words;
}
