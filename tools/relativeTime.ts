import { ToolError } from "./types.js";

/** Prometheus duration units, largest first, in milliseconds (a year is 365 days, as Prometheus counts it). */
const UNITS = [
  ["y", 365 * 86_400_000],
  ["w", 7 * 86_400_000],
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
  ["ms", 1],
] as const;

/** Each unit at most once, largest first, whole numbers: Prometheus's own duration grammar. */
const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

export const DURATION_FORM =
  "whole numbers with the units y, w, d, h, m, s, ms, largest first (e.g. now-5m, now-90m, now-1h30m, now-2d)";

/**
 * The milliseconds a Prometheus duration (`1h30m`, `2d`, `500ms`) spans: `invalid` when it is not one,
 * `too long` when it cannot be counted exactly in milliseconds (over about 285,000 years).
 */
export function durationMs(text: string): number | "invalid" | "too long" {
  const match = text === "" ? null : DURATION.exec(text);
  if (!match) return "invalid";
  let total = 0;
  for (const [index, [, unitMs]] of UNITS.entries()) {
    const digits = match[index + 1];
    if (digits === undefined) continue;
    const ms = Number(digits) * unitMs;
    total += ms;
    // Rounding is monotonic: a true value past 2^53 - 1 never comes out as a safe integer.
    if (!Number.isSafeInteger(ms) || !Number.isSafeInteger(total)) return "too long";
  }
  return total;
}

/** What a time argument that starts with `now` says: how far back from now, or why it is not one. */
export type RelativeTime = { backMs: number } | { problem: string };

/**
 * `now` and `now-<duration>` (how far before now they point), else the problem with a value that
 * starts with `now`; undefined for any other value (an absolute time, or not a time at all).
 */
export function parseRelativeTime(name: string, text: string): RelativeTime | undefined {
  if (!text.startsWith("now")) return undefined;
  if (text === "now") return { backMs: 0 };
  if (text.startsWith("now+")) {
    return {
      problem: `${name} can only look back from now: use now-<duration> (e.g. now-1h), or give a later time as RFC 3339 or Unix seconds`,
    };
  }
  const duration = text.startsWith("now-") ? durationMs(text.slice(4)) : "invalid";
  if (duration === "invalid") {
    return { problem: `${name} must be now or now-<duration>, the duration ${DURATION_FORM}` };
  }
  if (duration === "too long") return { problem: beforeEpoch(name) };
  return { backMs: duration };
}

function beforeEpoch(name: string): string {
  return `${name} reaches back before 1970-01-01T00:00:00Z (Unix time 0), where no data can be: use a shorter now-<duration> (e.g. now-1h)`;
}

/**
 * What to send Prometheus for a time argument: an absolute time exactly as given, `now` and
 * `now-<duration>` as the Unix seconds they name when the call's clock reads `nowMs`.
 */
export function resolveTime(name: string, text: string, nowMs: number): string {
  const relative = parseRelativeTime(name, text);
  if (relative === undefined) return text;
  // The input schema refuses these first; a tool run without it still gets a readable error.
  if ("problem" in relative) throw new ToolError(relative.problem, "invalid_arguments");
  const ms = nowMs - relative.backMs;
  if (ms < 0) throw new ToolError(beforeEpoch(name), "invalid_arguments");
  return unixSeconds(ms);
}

/** Whole epoch milliseconds as Unix seconds in decimal (`1700000000`, `1700000000.5`), without float rounding. */
export function unixSeconds(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const millis = ms - seconds * 1000;
  if (millis === 0) return String(seconds);
  return `${seconds}.${String(millis).padStart(3, "0").replace(/0+$/, "")}`;
}

/** A time argument as resolved (RFC 3339 or Unix seconds) in Unix seconds; NaN when it is neither. */
export function toUnixSeconds(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  return Date.parse(text) / 1000;
}

/**
 * A step argument (a Prometheus duration or seconds) in seconds; NaN when it is neither, or when its
 * seconds are not a finite number (a 400-digit number is Infinity, never a step).
 */
export function stepSeconds(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) {
    const seconds = Number(text);
    return Number.isFinite(seconds) ? seconds : Number.NaN;
  }
  const ms = durationMs(text);
  return typeof ms === "number" ? ms / 1000 : Number.NaN;
}
