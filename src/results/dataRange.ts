/**
 * How far back a backend's data goes, from what it tells of itself: Prometheus's
 * `GET /api/v1/status/runtimeinfo` (`storageRetention`, `startTime`) and its own
 * `prometheus_tsdb_lowest_timestamp_seconds` (the oldest sample its TSDB holds, blocks included).
 * So that "compared with 24 h ago" is known to be possible before it is asked.
 */

import { isPlainObject } from "../util/json.js";
import { isSetTime } from "./alerts.js";

/**
 * @example
 * ```ts
 * { retention: "15d", oldest_sample: "2023-02-14T00:00:00.000Z", started_at: "2023-03-01T08:12:44.1Z" }
 * ```
 */
export interface DataRange {
  /** As the server writes it: `15d`, `30d or 512MiB`. */
  retention?: string;
  /** The oldest sample stored, RFC 3339. */
  oldest_sample?: string;
  /** When the server last started: rule evaluation (and alerts' `activeAt`) restarted then. */
  started_at?: string;
}

/** The retention and start time of a runtimeinfo answer's `data`; empty when it has neither. */
export function runtimeFacts(data: unknown): DataRange {
  if (!isPlainObject(data)) return {};
  const retention = typeof data.storageRetention === "string" ? data.storageRetention.trim() : "";
  return {
    ...(retention === "" ? {} : { retention }),
    ...(isSetTime(data.startTime) ? { started_at: data.startTime } : {}),
  };
}

/** The oldest sample as RFC 3339, from the lowest-timestamp gauge's value (epoch seconds); undefined if unusable. */
export function oldestSample(seconds: number | undefined): string | undefined {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  const ms = seconds * 1000;
  // A TSDB with no sample yet reports the largest int64 (in ms); no Date holds that.
  if (ms > 8.64e15) return undefined;
  return new Date(ms).toISOString();
}
