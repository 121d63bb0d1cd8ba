/**
 * Alert episodes from Prometheus's own record of alert states: the `ALERTS{alertstate="pending"|"firing"}`
 * series (one sample per rule evaluation while the alert is active) and `ALERTS_FOR_STATE` (the same
 * evaluations, its value the alert's `activeAt` in Unix seconds). Pure: times in, episodes out.
 *
 * Why not `activeAt` alone: it restarts with rule evaluation (a Prometheus restart, a rules reload), so
 * after one every alert looks as if it began then. The stored series go further back.
 */

/**
 * How long a gap in an alert's series may last and still be one episode: Prometheus's
 * `--rules.alert.for-outage-tolerance` (default 1h), the outage after which it no longer restores an
 * alert's `for` state either. A restart leaves a gap of a few evaluations, an alert with a short `for`
 * drops back to pending after one: neither starts a new episode. (A constant for now; a setting if a
 * deployment runs Prometheus with another tolerance.)
 */
export const FOR_OUTAGE_TOLERANCE_SECONDS = 3600;

/**
 * A stretch of time in which Prometheus recorded an alert at least once, with no gap over the tolerance:
 * from one of its `ALERTS` series (`pending`, `firing`), or its `ALERTS_FOR_STATE` (`active_at`, with the
 * smallest `activeAt` recorded in it). A single sample is a presence whose `from` equals its `to`.
 * Times in Unix seconds.
 */
export interface Presence {
  state: "pending" | "firing" | "active_at";
  from: number;
  to: number;
  /**
   * `active_at` only: the `activeAt` values recorded in the stretch (Unix seconds), each once, smallest
   * first. Few: the value changes only when rule evaluation restarts.
   */
  activeAt?: readonly number[] | undefined;
}

/**
 * The largest time a JavaScript Date holds, in Unix seconds (±8.64e15 ms). A sample or `activeAt` beyond
 * it (an odd upstream's) is no time to show, and is left out of the record.
 */
export const MAX_DATE_SECONDS = 8.64e12;

const isDateSeconds = (seconds: number) => Number.isFinite(seconds) && Math.abs(seconds) <= MAX_DATE_SECONDS;

/** `activeAt` values a presence keeps at most (the smallest: a maximum matters least for an onset). */
const MAX_ACTIVE_AT_VALUES = 64;

/** One episode of an alert: pending and/or firing, with no gap over the tolerance. Unix seconds. */
export interface Episode {
  /** When the episode began: the earliest of its samples and of the `activeAt` values recorded in it. */
  onset: number;
  /** When it became pending: the onset, if it was recorded pending before it fired (or never fired). */
  pendingFrom?: number;
  /**
   * The first time it was recorded firing in the episode (a drop back to pending moves it not); the
   * onset when it was never recorded pending before (no `for`). Absent if it never fired.
   */
  firingFrom?: number;
  /** The last time it was recorded pending or firing. */
  lastSeen: number;
  /** Still pending or firing at the end of the record: the last episode, last seen at or after `ongoingAfter`. */
  ongoing: boolean;
  /** Its state when last seen (`firing` when both were recorded then). */
  lastState: "pending" | "firing";
}

export interface EpisodeOptions {
  /** Gaps up to this long do not split an episode (default FOR_OUTAGE_TOLERANCE_SECONDS). */
  toleranceSeconds?: number;
  /** An episode last seen at or after this time is ongoing (Unix seconds). */
  ongoingAfter: number;
}

/**
 * The episodes of one alert, oldest first. Presences whose gap from all before them is over the
 * tolerance start a new episode; an `activeAt` counts only within its episode (one reaching back to or
 * before the previous episode's last sample is ignored: the record says the alert was not active then).
 */
export function episodesOf(presences: readonly Presence[], options: EpisodeOptions): Episode[] {
  const tolerance = options.toleranceSeconds ?? FOR_OUTAGE_TOLERANCE_SECONDS;
  const sorted = presences
    .filter((p) => Number.isFinite(p.from) && Number.isFinite(p.to) && p.to >= p.from)
    .sort((a, b) => a.from - b.from || a.to - b.to);
  const groups: Presence[][] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const presence of sorted) {
    const current = groups.at(-1);
    if (current === undefined || presence.from - end > tolerance) groups.push([presence]);
    else current.push(presence);
    end = Math.max(end, presence.to);
  }
  const episodes: Episode[] = [];
  for (const [index, group] of groups.entries()) {
    const previousEnd = episodes.at(-1)?.lastSeen ?? Number.NEGATIVE_INFINITY;
    // Only the last episode can go on: a later one began after it ended.
    const ongoingAfter = index === groups.length - 1 ? options.ongoingAfter : Number.POSITIVE_INFINITY;
    episodes.push(episodeOf(group, previousEnd, ongoingAfter));
  }
  return episodes;
}

function episodeOf(group: readonly Presence[], previousEnd: number, ongoingAfter: number): Episode {
  let onset = Number.POSITIVE_INFINITY;
  let lastSeen = Number.NEGATIVE_INFINITY;
  let firingFrom: number | undefined;
  let lastPending = Number.NEGATIVE_INFINITY;
  let lastFiring = Number.NEGATIVE_INFINITY;
  for (const presence of group) {
    onset = Math.min(onset, presence.from);
    lastSeen = Math.max(lastSeen, presence.to);
    if (presence.state === "firing") {
      firingFrom = Math.min(firingFrom ?? presence.from, presence.from);
      lastFiring = Math.max(lastFiring, presence.to);
    } else if (presence.state === "pending") lastPending = Math.max(lastPending, presence.to);
  }
  for (const { activeAt = [] } of group) {
    const within = activeAt.find((value) => value > previousEnd);
    if (within !== undefined) onset = Math.min(onset, within);
  }
  // Recorded pending before it fired (or in the same step), or never firing: pending from the onset.
  // Otherwise it fired from its onset (a rule without `for`, or an episode under way before the record).
  const wasPending = group.some((p) => p.state === "pending" && p.from <= (firingFrom ?? p.from));
  const pendingFrom = firingFrom === undefined || wasPending ? onset : undefined;
  return {
    onset,
    ...(pendingFrom === undefined ? {} : { pendingFrom }),
    ...(firingFrom === undefined ? {} : { firingFrom: pendingFrom === undefined ? onset : firingFrom }),
    lastSeen,
    ongoing: lastSeen >= ongoingAfter,
    // Pending unless last recorded firing (ALERTS_FOR_STATE, written in both states, does not tell).
    lastState: lastFiring >= lastPending && firingFrom !== undefined ? "firing" : "pending",
  };
}

/**
 * One series' samples as presences: consecutive samples no further apart than the tolerance make one.
 * `samples` are [time, value] in time order; for `active_at` the value is an `activeAt` (each distinct one
 * kept), for `pending`/`firing` any value (a bucket's sample count) above 0 is a presence.
 */
export function presencesOfSeries(
  state: Presence["state"],
  samples: ReadonlyArray<readonly [number, number]>,
  toleranceSeconds = FOR_OUTAGE_TOLERANCE_SECONDS,
): Presence[] {
  const out: Presence[] = [];
  let current: Presence | undefined;
  for (const [time, value] of samples) {
    if (!isDateSeconds(time) || Number.isNaN(value)) continue;
    if (state !== "active_at" && !(value > 0)) continue;
    if (current === undefined || time - current.to > toleranceSeconds) {
      current = { state, from: time, to: time };
      out.push(current);
    } else {
      current.from = Math.min(current.from, time);
      current.to = Math.max(current.to, time);
    }
    if (state === "active_at" && isDateSeconds(value)) current.activeAt = withValue(current.activeAt, value);
  }
  return out;
}

function withValue(values: readonly number[] = [], value: number): readonly number[] {
  if (values.includes(value)) return values;
  return [...values, value].sort((a, b) => a - b).slice(0, MAX_ACTIVE_AT_VALUES);
}
