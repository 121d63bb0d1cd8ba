import { ToolError } from "../src/errors.js";
import { formatDuration } from "../src/promql/advice.js";
import type { LabelMatcher } from "../src/promql/matchers.js";
import { FOR_OUTAGE_TOLERANCE_SECONDS } from "../src/results/alertEpisodes.js";
import {
  ACTIVE_AT_STATE,
  type AlertHistory,
  AlertHistorySink,
  alertKey,
  rfc3339,
} from "../src/results/alertHistory.js";
import { expectList, getFromWorkspace, readClock, type WorkspaceArgs } from "./common.js";
import { unixSeconds } from "./relativeTime.js";
import type { ToolCall } from "./types.js";

/**
 * The steps the history is read at, each a whole number of minutes and a divisor of the next: the
 * smallest at which the range spans at most HISTORY_STEPS of them.
 */
const NICE_STEPS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];

/**
 * Steps a history covers at most: each of an alert's series comes back with at most this many points
 * (~18 KB), whatever the range. A day is read at 2m, a week at 15m.
 */
export const HISTORY_STEPS = 720;

/** The step a range of `seconds` is read at (see NICE_STEPS). */
export function historyStep(seconds: number): number {
  const wanted = seconds / HISTORY_STEPS;
  return NICE_STEPS.find((step) => step >= wanted) ?? Math.ceil(wanted / 86_400) * 86_400;
}

/** A label name PromQL 2.x takes unquoted: a matcher on any other is applied here only. */
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The matchers of one selector as PromQL text; `alertstate` and `__name__` are the query's own. */
function matchersText(selector: readonly LabelMatcher[]): string {
  return selector
    .filter((m) => LABEL_NAME.test(m.name) && m.name !== "alertstate" && m.name !== "__name__")
    .map((m) => `${m.name}${m.type}${JSON.stringify(m.value)}`)
    .join(",");
}

/**
 * The history query at `step` seconds: each ALERTS series' sample count per step (a step with none is a
 * gap; counting every raw sample, no short episode falls between two steps), and ALERTS_FOR_STATE's
 * smallest value per step (the alert's `activeAt`), tagged `alertstate="active_at"` to tell it apart.
 * Several selectors are joined with `or` (any of them).
 */
export function historyQuery(selectors: readonly (readonly LabelMatcher[])[], step: number): string {
  const window = formatDuration(step);
  const parts = (selectors.length === 0 ? [[]] : selectors).map((selector) => {
    const matchers = matchersText(selector);
    return (
      `count_over_time(ALERTS{${matchers}}[${window}]) or ` +
      `label_replace(min_over_time(ALERTS_FOR_STATE{${matchers}}[${window}]), "alertstate", "${ACTIVE_AT_STATE}", "", "")`
    );
  });
  return parts.join(" or ");
}

/** What a history read covers. Times in Unix seconds. */
export interface HistoryWindow {
  start: number;
  end: number;
  /** Label matchers on the alert (see parseSelectors); any selector matches. None: every alert. */
  selectors: readonly (readonly LabelMatcher[])[];
}

/** The histories read, and how: the step their times are rounded to, the first step's start. */
export interface HistoryRead {
  histories: Map<string, AlertHistory>;
  /** The size of Prometheus's answer. */
  bytes: number;
  step: number;
  /** The earliest time a sample was counted from: the start, moved back to a whole number of steps before end. */
  from: number;
}

/**
 * Reads the alerts' history over the window with one range query (see historyQuery). Evaluated at end
 * and whole steps before it, so the last step ends at `end` and the steps cover the window from start.
 * An episode last seen within two steps (at least 5m, Prometheus's lookback) of end is ongoing.
 */
export async function readAlertHistory(
  args: WorkspaceArgs,
  call: ToolCall,
  window: HistoryWindow,
): Promise<HistoryRead> {
  const span = Math.max(0, window.end - window.start);
  const step = historyStep(span);
  const first = window.end - Math.ceil(span / step) * step;
  const ongoingAfter = window.end - Math.max(2 * step, 300);
  const params = {
    query: historyQuery(window.selectors, step),
    start: unixSeconds(first * 1000),
    end: unixSeconds(window.end * 1000),
    step: String(step),
  };
  const read = await getFromWorkspace(
    args,
    call,
    { path: "/query_range", params },
    () => new AlertHistorySink(ongoingAfter),
  );
  return { ...expectList(read, "alert history"), step, from: first - step };
}

/** How far back ListAlerts and the overview look for the start of an alert's current episode. */
export const ONSET_LOOKBACK_SECONDS = 7 * 86_400;

/** An alert as ListAlerts has it: its labels and `activeAt` (RFC 3339). */
export interface CurrentAlert {
  labels: Record<string, string>;
  activeAt?: string | undefined;
}

/** When an alert's current episode began, and why it differs from `activeAt` where it does. */
export interface AlertOnset {
  /** RFC 3339: the onset (see docs/tools.md, "The onset rule"); `activeAt` as written when they agree. */
  onset: string;
  onset_note?: string;
}

/** The onset of each alert it is asked for (undefined for one without activeAt), or why there are none. */
export type OnsetLookup = ((alert: CurrentAlert) => AlertOnset | undefined) & {
  readonly unavailable?: string;
};

/**
 * The current episodes' onsets of the alerts the selectors match, read from the stored history of the
 * last ONSET_LOOKBACK_SECONDS. Never throws a tool error: when the history cannot be read (no
 * permission, a Prometheus error), the lookup finds nothing and says why in `unavailable`.
 */
export async function onsetLookup(
  args: WorkspaceArgs,
  call: ToolCall,
  selectors: readonly (readonly LabelMatcher[])[],
): Promise<OnsetLookup> {
  const now = readClock(call) / 1000;
  let read: HistoryRead;
  try {
    read = await readAlertHistory(args, call, { start: now - ONSET_LOOKBACK_SECONDS, end: now, selectors });
  } catch (error) {
    if (!(error instanceof ToolError) || call.context.signal?.aborted) throw error;
    const unavailable = `Onsets unavailable: reading ALERTS history failed (${error.message.replace(/\.$/, "")}).`;
    return Object.assign(() => undefined, { unavailable });
  }
  return (alert) => onsetOf(alert, read, now);
}

function onsetOf(alert: CurrentAlert, read: HistoryRead, now: number): AlertOnset | undefined {
  if (alert.activeAt === undefined) return undefined;
  const activeAt = Date.parse(alert.activeAt) / 1000;
  if (Number.isNaN(activeAt)) return undefined;
  const current = read.histories.get(alertKey(alert.labels))?.episodes.at(-1);
  // The episode goes on if its last sample is within the tolerance of now (a restart's gap included).
  const stored =
    current !== undefined && now - current.lastSeen <= FOR_OUTAGE_TOLERANCE_SECONDS
      ? current.onset
      : undefined;
  // ALERTS_FOR_STATE keeps whole seconds of activeAt: only a second or more earlier is another onset.
  if (stored === undefined || activeAt - stored < 1) return { onset: alert.activeAt };
  const reachesBack = stored >= read.from && stored <= read.from + read.step;
  return {
    onset: rfc3339(stored),
    onset_note: reachesBack
      ? `active at least since onset, when the stored history read (${formatDuration(ONSET_LOOKBACK_SECONDS)}) begins; activeAt is when rule evaluation last restarted`
      : "activeAt is when rule evaluation last restarted; stored ALERTS show it active since onset",
  };
}

/**
 * The onsets of `alerts` (as ListAlerts lists them, from /api/v1/alerts): for each, in order, when its
 * current episode began, or undefined (no activeAt); `unavailable` says why there are none when the
 * history could not be read. Reads the history of these alerts' alertnames (of every alert past 20).
 */
export async function alertOnsets(
  args: WorkspaceArgs,
  call: ToolCall,
  alerts: readonly CurrentAlert[],
): Promise<{ onsets: Array<AlertOnset | undefined>; unavailable?: string }> {
  if (alerts.length === 0) return { onsets: [] };
  const names = [...new Set(alerts.map((alert) => alert.labels.alertname ?? ""))];
  const selectors =
    names.length > 20 ? [] : names.map((value) => [{ name: "alertname", type: "=" as const, value }]);
  const lookup = await onsetLookup(args, call, selectors);
  return {
    onsets: alerts.map((alert) => lookup(alert)),
    ...(lookup.unavailable === undefined ? {} : { unavailable: lookup.unavailable }),
  };
}
