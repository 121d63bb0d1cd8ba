/**
 * Scrape targets as Prometheus's `GET /api/v1/targets?state=active` answers them (`data.activeTargets`):
 * the ones not up, made into compact entries for the model, and a tally of all of them.
 */

import { isPlainObject } from "../util/json.js";
import { compareInstants, isSetTime } from "./alerts.js";
import { compareCodePoints, labelSet, labelValue } from "./labelSets.js";

/**
 * A target whose last scrape failed (`down`) or that was never scraped yet (`unknown`).
 *
 * @example
 * ```ts
 * { job: "node-exporter", instance: "10.0.3.7:9100", health: "down",
 *   last_error: "context deadline exceeded", last_scrape: "2023-03-01T10:02:13.52Z" }
 * ```
 */
export interface TargetNotUp {
  job: string;
  instance: string;
  health: string;
  last_error?: string;
  last_scrape?: string;
}

/** What one element of `activeTargets` says: its health, and the entry when it is not up. */
export type TargetReading = { health: "up" } | { health: string; entry: TargetNotUp } | undefined;

/** One element of `activeTargets`, or undefined when it is not an object with a string `health`. */
export function readTarget(raw: unknown): TargetReading {
  if (!isPlainObject(raw) || typeof raw.health !== "string") return undefined;
  if (raw.health === "up") return { health: "up" };
  const labels = labelSet(raw.labels) ?? {};
  const lastError = typeof raw.lastError === "string" ? raw.lastError : "";
  const entry: TargetNotUp = {
    job: labelValue(labels, "job") || (typeof raw.scrapePool === "string" ? raw.scrapePool : ""),
    instance: labelValue(labels, "instance") || (typeof raw.scrapeUrl === "string" ? raw.scrapeUrl : ""),
    health: raw.health,
    ...(lastError === "" ? {} : { last_error: lastError }),
    ...(isSetTime(raw.lastScrape) ? { last_scrape: raw.lastScrape } : {}),
  };
  return { health: raw.health, entry };
}

/** Down before unknown; then by job and instance (code-point order), so the order is total. */
export function compareTargets(a: TargetNotUp, b: TargetNotUp): number {
  return (
    Number(b.health === "down") - Number(a.health === "down") ||
    compareCodePoints(a.job, b.job) ||
    compareCodePoints(a.instance, b.instance) ||
    compareCodePoints(a.health, b.health) ||
    compareInstants(a.last_scrape, b.last_scrape, "newest") ||
    compareCodePoints(a.last_error ?? "", b.last_error ?? "")
  );
}
