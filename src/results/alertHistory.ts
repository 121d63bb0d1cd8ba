/**
 * Reading a range query over Prometheus's record of alert states (see tools/alertHistory.ts for the
 * query: each `ALERTS` series counted per step, `ALERTS_FOR_STATE` as its smallest value per step, tagged
 * `alertstate="active_at"`) into each alert's episodes, and those as compact entries for the model.
 */

import { formatDuration } from "../promql/advice.js";
import { isPlainObject, parseJsonBytes } from "../util/json.js";
import {
  type Episode,
  episodesOf,
  FOR_OUTAGE_TOLERANCE_SECONDS,
  type Presence,
  presencesOfSeries,
} from "./alertEpisodes.js";
import { compareInstants } from "./alerts.js";
import { compareCodePoints, compareLabels, type Labels, labelSet, labelValue, plural } from "./labelSets.js";

/** The tag the history query gives ALERTS_FOR_STATE's series in `alertstate`. */
export const ACTIVE_AT_STATE = "active_at";

/** The labels Prometheus adds to an alert's own in its ALERTS series: not part of which alert it is. */
const NOT_THE_ALERT = new Set(["__name__", "alertstate"]);

/** One alert's record: its labels (without `alertstate`) and its episodes, oldest first. */
export interface AlertHistory {
  labels: Labels;
  episodes: Episode[];
}

/** The key an alert is known by across its series: its label set without `alertstate` and `__name__`. */
export function alertKey(labels: Labels): string {
  return JSON.stringify(
    Object.entries(labels)
      .filter(([name]) => !NOT_THE_ALERT.has(name))
      .sort((a, b) => compareCodePoints(a[0], b[0])),
  );
}

function alertLabels(labels: Labels): Labels {
  return Object.fromEntries(Object.entries(labels).filter(([name]) => !NOT_THE_ALERT.has(name)));
}

/** A range answer's series: `[time, value]` pairs, values as numbers; undefined when not of that shape. */
function samplesOf(values: unknown): Array<[number, number]> | undefined {
  if (!Array.isArray(values)) return undefined;
  const samples: Array<[number, number]> = [];
  for (const pair of values) {
    if (!Array.isArray(pair) || typeof pair[0] !== "number" || typeof pair[1] !== "string") return undefined;
    samples.push([pair[0], Number(pair[1])]);
  }
  return samples;
}

/**
 * The data plane's sink for the history query's range answer: each series (one element of
 * `data.result`) becomes presences as it streams in, so memory holds runs, not samples. `finish` gives
 * every alert's history, or undefined when an element was not a series.
 */
export class AlertHistorySink {
  private readonly alerts = new Map<string, { labels: Labels; presences: Presence[] }>();
  private wellFormed = true;

  constructor(
    /** An episode last seen at or after this time is ongoing (Unix seconds). */
    private readonly ongoingAfter: number,
    private readonly toleranceSeconds = FOR_OUTAGE_TOLERANCE_SECONDS,
  ) {}

  element(raw: Uint8Array): void {
    const series = parseJsonBytes(raw);
    const labels = isPlainObject(series) ? labelSet(series.metric) : undefined;
    const samples = isPlainObject(series) ? samplesOf(series.values) : undefined;
    if (labels === undefined || samples === undefined) {
      this.wellFormed = false;
      return;
    }
    const tag = labelValue(labels, "alertstate");
    const state = tag === ACTIVE_AT_STATE ? "active_at" : tag === "firing" ? "firing" : "pending";
    const key = alertKey(labels);
    const alert = this.alerts.get(key) ?? { labels: alertLabels(labels), presences: [] };
    this.alerts.set(key, alert);
    alert.presences.push(...presencesOfSeries(state, samples, this.toleranceSeconds));
  }

  /** Every alert's history and the answer's size in bytes; undefined when an element was not a series. */
  finish(
    _data: unknown,
    answerBytes: number,
  ): { histories: Map<string, AlertHistory>; bytes: number } | undefined {
    if (!this.wellFormed) return undefined;
    const histories = new Map<string, AlertHistory>();
    for (const [key, { labels, presences }] of this.alerts) {
      const options = { ongoingAfter: this.ongoingAfter, toleranceSeconds: this.toleranceSeconds };
      histories.set(key, { labels, episodes: episodesOf(presences, options) });
    }
    return { histories, bytes: answerBytes };
  }
}

/** Unix seconds as RFC 3339 (UTC), whole seconds without a fraction, as Prometheus writes times. */
export function rfc3339(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString().replace(".000Z", "Z");
}

/** An episode as the model reads it: RFC 3339 times; no `to` while it goes on. */
export interface EpisodeEntry {
  pending_from?: string;
  firing_from?: string;
  to?: string;
}

/** One alert's history as GetAlertHistory answers it. */
export interface AlertHistoryEntry {
  labels: Labels;
  /** In words: how many episodes, how many fired, how long firing in all, and what it is now. */
  summary: string;
  /** Newest first, at most MAX_EPISODES_LISTED; at least one. */
  episodes: EpisodeEntry[];
}

/** Episodes listed per alert: a flapping alert's hundreds would crowd out every other alert. */
export const MAX_EPISODES_LISTED = 10;

function episodeEntry(episode: Episode): EpisodeEntry {
  return {
    ...(episode.pendingFrom === undefined ? {} : { pending_from: rfc3339(episode.pendingFrom) }),
    ...(episode.firingFrom === undefined ? {} : { firing_from: rfc3339(episode.firingFrom) }),
    ...(episode.ongoing ? {} : { to: rfc3339(episode.lastSeen) }),
  };
}

/**
 * `3 episodes, 2 firing (2h10m in all); pending now`: an ongoing episode fires until `end`, others until
 * last seen; durations to the minute past one.
 */
export function historySummary(episodes: readonly Episode[], end: number): string {
  let fired = 0;
  let firingSeconds = 0;
  for (const episode of episodes) {
    if (episode.firingFrom === undefined) continue;
    fired++;
    firingSeconds += Math.max(0, (episode.ongoing ? end : episode.lastSeen) - episode.firingFrom);
  }
  const rounded = firingSeconds >= 60 ? Math.round(firingSeconds / 60) * 60 : Math.round(firingSeconds);
  const firing = fired === 0 ? "never firing" : `${fired} firing (${formatDuration(rounded)} in all)`;
  const last = episodes.at(-1);
  const now = last?.ongoing ? `; ${last.lastState} at end` : "";
  const listed = episodes.length > MAX_EPISODES_LISTED ? `; the ${MAX_EPISODES_LISTED} newest listed` : "";
  return `${plural(episodes.length, "episode")}, ${firing}${now}${listed}`;
}

/** An alert's history as its entry, or undefined when it has no episode. */
export function historyEntry(history: AlertHistory, end: number): AlertHistoryEntry | undefined {
  if (history.episodes.length === 0) return undefined;
  return {
    labels: history.labels,
    summary: historySummary(history.episodes, end),
    episodes: history.episodes.slice(-MAX_EPISODES_LISTED).reverse().map(episodeEntry),
  };
}

/**
 * The most recent activity first (ongoing, then by last seen, newest first), then by alertname and
 * the whole label set in code-point order: a total order.
 */
export function compareHistoryEntries(a: AlertHistoryEntry, b: AlertHistoryEntry): number {
  // An ongoing episode has no `to`: it comes first (compareInstants would put a missing time last).
  const [lastA, lastB] = [a.episodes[0]?.to, b.episodes[0]?.to];
  const ongoing = Number(lastA !== undefined) - Number(lastB !== undefined);
  return (
    ongoing ||
    compareInstants(lastA, lastB, "newest") ||
    compareCodePoints(labelValue(a.labels, "alertname"), labelValue(b.labels, "alertname")) ||
    compareLabels(a.labels, b.labels) ||
    compareCodePoints(JSON.stringify(a.episodes), JSON.stringify(b.episodes))
  );
}
