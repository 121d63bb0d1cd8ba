/**
 * Silences as Alertmanager's `GET /api/v2/silences` answers them, made into compact entries for the model
 * (matchers written as PromQL matchers, as a user writes them in amtool or a selector) and ordered.
 */

import { labelToken } from "../promql/syntax.js";
import { isPlainObject } from "../util/json.js";
import { compareInstants, isSetTime } from "./alerts.js";
import { compareCodePoints } from "./labelSets.js";

/**
 * One silence. Field names are Alertmanager's; `state` is its `status.state`.
 *
 * @example
 * ```ts
 * {
 *   id: "8f0b3a4e-3f5e-4c2b-9a57-0c1f3d1e6a42", state: "active",
 *   matchers: ['alertname="KubePodCrashLooping"', 'namespace=~"shop|cart"'],
 *   startsAt: "2023-03-01T09:00:00.000Z", endsAt: "2023-03-01T13:00:00.000Z",
 *   createdBy: "alice", comment: "Rolling out shop v2", updatedAt: "2023-03-01T09:00:00.000Z",
 * }
 * ```
 */
export interface SilenceEntry {
  id: string;
  /** `name="value"`, `name!="value"`, `name=~"regex"` or `name!~"regex"`, in Alertmanager's order. */
  matchers: string[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
  /** `active`, `pending` (starts later) or `expired`. */
  state: string;
  updatedAt?: string;
}

/**
 * One element of the answer, or undefined when it is not an object with string `id`, `startsAt`, `endsAt`
 * and `status.state` and a `matchers` array whose every element has a string `name` and `value` (a
 * silence shown without one of its matchers would look broader than it is).
 */
export function silenceEntry(raw: unknown): SilenceEntry | undefined {
  if (!isPlainObject(raw) || !isPlainObject(raw.status) || typeof raw.status.state !== "string")
    return undefined;
  const { id, startsAt, endsAt } = raw;
  if (typeof id !== "string" || typeof startsAt !== "string" || typeof endsAt !== "string") return undefined;
  if (!Array.isArray(raw.matchers)) return undefined;
  const matchers: string[] = [];
  for (const matcher of raw.matchers) {
    const text = matcherText(matcher);
    if (text === undefined) return undefined;
    matchers.push(text);
  }
  return {
    id,
    state: raw.status.state,
    matchers,
    startsAt,
    endsAt,
    createdBy: typeof raw.createdBy === "string" ? raw.createdBy : "",
    comment: typeof raw.comment === "string" ? raw.comment : "",
    ...(isSetTime(raw.updatedAt) ? { updatedAt: raw.updatedAt } : {}),
  };
}

/**
 * An Alertmanager matcher (`{name, value, isRegex, isEqual}`) as a PromQL matcher. `isEqual` came with
 * Alertmanager 0.22: older ones leave it out and mean equal; `isRegex` left out means not a regex. The value
 * is written as a JSON string, which PromQL reads the same (`\\`, `\"`, `\n`, `\u0001`).
 */
export function matcherText(raw: unknown): string | undefined {
  if (!isPlainObject(raw) || typeof raw.name !== "string" || typeof raw.value !== "string") return undefined;
  const equal = raw.isEqual !== false;
  const regex = raw.isRegex === true;
  const op = regex ? (equal ? "=~" : "!~") : equal ? "=" : "!=";
  return `${labelToken(raw.name)}${op}${JSON.stringify(raw.value)}`;
}

const STATE_RANK: Readonly<Record<string, number>> = { active: 0, pending: 1, expired: 2 };

function stateRank(state: string): number {
  return Object.hasOwn(STATE_RANK, state) ? (STATE_RANK[state] as number) : 3;
}

/**
 * The order of a silence list, what silences alerts now first: active (soonest to end first), then pending
 * (soonest to start first), then expired (most recently ended first), then any other state; then by id.
 */
export function compareSilences(a: SilenceEntry, b: SilenceEntry): number {
  const rank = stateRank(a.state) - stateRank(b.state);
  if (rank !== 0) return rank;
  let byTime = 0;
  if (a.state === "active") byTime = compareInstants(a.endsAt, b.endsAt, "oldest");
  else if (a.state === "pending") byTime = compareInstants(a.startsAt, b.startsAt, "oldest");
  else if (a.state === "expired") byTime = compareInstants(a.endsAt, b.endsAt, "newest");
  return (
    byTime ||
    compareCodePoints(a.state, b.state) ||
    compareCodePoints(a.id, b.id) ||
    compareCodePoints(JSON.stringify(a), JSON.stringify(b))
  );
}

/** Keeps the silences in `state`; all of them when `state` is undefined. */
export function stateFilter(
  state: "active" | "pending" | "expired" | undefined,
): (entry: SilenceEntry) => boolean {
  return state === undefined ? () => true : (entry) => entry.state === state;
}
