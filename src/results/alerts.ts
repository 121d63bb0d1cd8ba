/**
 * Alerts as Prometheus's `/api/v1/alerts` answers them (`data.alerts`), made into compact entries for the
 * model, their order, and a tally for the note of a cut list. Also the timestamp helpers the other entry
 * modules share: Prometheus and Alertmanager write times as RFC 3339 with up to nanoseconds, and Go's
 * zero time for "never".
 */

import { isPlainObject } from "../util/json.js";
import { formatCount } from "./fit.js";
import {
  compareCodePoints,
  compareLabels,
  comparePairs,
  labelSet,
  labelValue,
  sortedPairs,
} from "./labelSets.js";

/**
 * One alert. Field names are Prometheus's; optional ones are left out when empty, to save the model's tokens.
 *
 * @example
 * ```ts
 * alertEntry({
 *   labels: { alertname: "KubePodCrashLooping", namespace: "shop", severity: "warning" },
 *   annotations: { summary: "Pod is crash looping." },
 *   state: "firing",
 *   activeAt: "2023-03-01T10:02:13.52143122Z",
 *   value: "3e+00",
 * });
 * // the same fields; `annotations` would be left out if it were {}, `activeAt` if it were Go's zero time
 * ```
 */
export interface AlertEntry {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  /** `firing` or `pending` (the alerts endpoint never lists inactive ones). */
  state: string;
  /** When the alert became pending. */
  activeAt?: string;
  /** The alert expression's value when last evaluated, as Prometheus writes it (`1e+00`). */
  value?: string;
  /** Set while a `keep_firing_for` rule keeps firing an alert whose condition is gone (Prometheus ≥ 2.42). */
  keepFiringSince?: string;
}

/** How Go writes its zero time.Time, which Prometheus sends for "never" (a rule not yet evaluated). */
export const ZERO_TIME = "0001-01-01T00:00:00Z";
const ZERO_TIME_MS = Date.parse(ZERO_TIME);

/** Whether `value` is a time worth showing: a non-empty string that is not Go's zero time. */
export function isSetTime(value: unknown): value is string {
  return typeof value === "string" && value !== "" && Date.parse(value) !== ZERO_TIME_MS;
}

/**
 * One element of `data.alerts`, or undefined when it is not an object with a `labels` object (of strings)
 * and a string `state`.
 */
export function alertEntry(raw: unknown): AlertEntry | undefined {
  if (!isPlainObject(raw) || typeof raw.state !== "string") return undefined;
  const labels = labelSet(raw.labels);
  if (!labels) return undefined;
  const annotations = labelSet(raw.annotations);
  return {
    labels,
    ...(annotations && Object.keys(annotations).length > 0 ? { annotations } : {}),
    state: raw.state,
    ...(isSetTime(raw.activeAt) ? { activeAt: raw.activeAt } : {}),
    ...(typeof raw.value === "string" && raw.value !== "" ? { value: raw.value } : {}),
    ...(isSetTime(raw.keepFiringSince) ? { keepFiringSince: raw.keepFiringSince } : {}),
  };
}

const STATE_RANK: Readonly<Record<string, number>> = { firing: 0, pending: 1 };

function stateRank(state: string): number {
  return Object.hasOwn(STATE_RANK, state) ? (STATE_RANK[state] as number) : 2;
}

/**
 * The order of an alert list, most pressing first: firing, then pending, then any other state; within a
 * state the newest `activeAt` first (none last); then by `alertname`, then by the whole label set (both in
 * code-point order). The remaining fields break any tie left, so the order is total and deterministic.
 */
export function compareAlerts(a: AlertEntry, b: AlertEntry): number {
  return (
    stateRank(a.state) - stateRank(b.state) ||
    compareInstants(a.activeAt, b.activeAt, "newest") ||
    compareCodePoints(labelValue(a.labels, "alertname"), labelValue(b.labels, "alertname")) ||
    compareLabels(a.labels, b.labels) ||
    compareCodePoints(a.state, b.state) ||
    compareCodePoints(a.activeAt ?? "", b.activeAt ?? "") ||
    compareCodePoints(a.value ?? "", b.value ?? "") ||
    compareCodePoints(a.keepFiringSince ?? "", b.keepFiringSince ?? "") ||
    comparePairs(sortedPairs(a.annotations ?? {}), sortedPairs(b.annotations ?? {}))
  );
}

/** Keeps the alerts in `state`; all of them when `state` is undefined. */
export function stateFilter(state: "firing" | "pending" | undefined): (entry: AlertEntry) => boolean {
  return state === undefined ? () => true : (entry) => entry.state === state;
}

/** Alertnames counted at most: a list of more is no guide anyway. */
const MAX_ALERTNAMES = 10_000;

/** How many alerts are in each state and carry each alertname: what a cut alert list held. */
export class AlertTally {
  /** Alerts added. */
  total = 0;
  private readonly states = new Map<string, number>();
  private readonly names = new Map<string, number>();
  private namesDropped = false;

  add(entry: AlertEntry): void {
    this.total++;
    this.states.set(entry.state, (this.states.get(entry.state) ?? 0) + 1);
    const name = labelValue(entry.labels, "alertname");
    const count = this.names.get(name);
    if (count !== undefined) this.names.set(name, count + 1);
    else if (this.names.size < MAX_ALERTNAMES) this.names.set(name, 1);
    else this.namesDropped = true;
  }

  /** Alerts per state: firing, pending, then any other state by name. */
  byState(): Array<{ state: string; alerts: number }> {
    return [...this.states]
      .map(([state, alerts]) => ({ state, alerts }))
      .sort((a, b) => stateRank(a.state) - stateRank(b.state) || compareCodePoints(a.state, b.state));
  }

  /** Alerts per alertname (`""` for alerts without one), most first, then by name. */
  byAlertname(): Array<{ alertname: string; alerts: number }> {
    return [...this.names]
      .map(([alertname, alerts]) => ({ alertname, alerts }))
      .sort((a, b) => b.alerts - a.alerts || compareCodePoints(a.alertname, b.alertname));
  }

  /**
   * The tally in words for a note, with the `max` most frequent alertnames:
   * `firing 120, pending 3; by alertname: KubePodCrashLooping (80), TargetDown (40) and 2 more`.
   * Empty when nothing was added.
   */
  words(max: number): string {
    if (this.total === 0) return "";
    const states = this.byState()
      .map(({ state, alerts }) => `${state} ${formatCount(alerts)}`)
      .join(", ");
    const names = this.byAlertname();
    const shown = names.slice(0, Math.max(0, max));
    if (shown.length === 0) return states;
    const listed = shown.map(
      (n) => `${n.alertname === "" ? "(no alertname)" : n.alertname} (${formatCount(n.alerts)})`,
    );
    const rest = names.length - shown.length;
    // Alertnames past MAX_ALERTNAMES were not counted: there is at least one more than those listed.
    const more = this.namesDropped
      ? ` and at least ${formatCount(rest + 1)} more`
      : rest > 0
        ? ` and ${formatCount(rest)} more`
        : "";
    return `${states}; by alertname: ${listed.join(", ")}${more}`;
  }
}

/** The tally of `entries` (see AlertTally). */
export function alertSummary(entries: Iterable<AlertEntry>): AlertTally {
  const tally = new AlertTally();
  for (const entry of entries) tally.add(entry);
  return tally;
}

// ---------------------------------------------------------------------------------------------------------
// Times

/** An RFC 3339 time as [milliseconds of its whole second since the epoch, nanoseconds into that second]. */
type Instant = [number, number];

const RFC3339 = /^(\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i;

/**
 * Date.parse keeps milliseconds only, and Prometheus writes nanoseconds (`10:02:13.52143122Z`): the fraction
 * is read apart so that two alerts a microsecond apart still sort by time. Undefined when unparseable.
 */
function instantOf(text: string | undefined): Instant | undefined {
  if (text === undefined) return undefined;
  const match = RFC3339.exec(text);
  const seconds = Date.parse(match ? `${match[1]}${match[3]}` : text);
  if (Number.isNaN(seconds)) return undefined;
  return [seconds, match?.[2] ? Number(match[2].padEnd(9, "0")) : 0];
}

/**
 * Two RFC 3339 times, the `oldest` or the `newest` first; a missing or unparseable time sorts after every
 * time either way (0 between two of them).
 */
export function compareInstants(
  a: string | undefined,
  b: string | undefined,
  first: "oldest" | "newest",
): number {
  const x = instantOf(a);
  const y = instantOf(b);
  if (!x || !y) return x ? -1 : y ? 1 : 0;
  const order = x[0] - y[0] || x[1] - y[1];
  if (order === 0) return 0;
  return order < 0 === (first === "oldest") ? -1 : 1;
}
