/**
 * Sample values as Prometheus writes them (strings, with `NaN`, `+Inf`, `-Inf` spelled its own way) and
 * as the server writes them: rounded to SIGNIFICANT_DIGITS, which a model reads in fewer tokens; and
 * times as the server writes them (RFC 3339).
 */

/**
 * Values the server writes (statistics, and in the compact form curves and samples) keep this many
 * significant digits: a rounding error of at most 0.005 %. Four digits would save
 * only a few per cent of a curve's tokens for ten times the error, by both tokenizers (bench case
 * `cut-range-points-per-token`, its note): the timestamps and quotes dropped are what saves tokens.
 */
export const SIGNIFICANT_DIGITS = 5;

/** A Prometheus sample value as a number: NaN for anything that is not one. */
export function parseSample(text: unknown): number {
  if (typeof text !== "string") return Number.NaN;
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  // Number() rather than parseFloat: "1.5abc" is not a value ("Inf" and "NaN" are handled above and below).
  return text === "" ? Number.NaN : Number(text);
}

/** `x` to SIGNIFICANT_DIGITS significant digits (non-finite values as they are; -0 is 0, as JSON writes it). */
export function rounded(x: number): number {
  if (x === 0) return 0;
  return Number.isFinite(x) ? Number(x.toPrecision(SIGNIFICANT_DIGITS)) : x;
}

/** A statistic in a JSON table: a rounded number, or `"NaN"`, `"+Inf"`, `"-Inf"` as Prometheus spells them. */
export function tableNumber(x: number): number | string {
  if (Number.isFinite(x)) return rounded(x);
  return nonFinite(x);
}

/** A sample value in Prometheus's string form, rounded. */
export function sampleText(x: number): string {
  if (Number.isFinite(x)) return String(rounded(x));
  return nonFinite(x);
}

/**
 * A Unix time (seconds) in RFC 3339 UTC, as every time the server writes besides Prometheus's own pairs:
 * `2026-11-28T03:10:00Z`, with a fraction only when the time is not whole (`…:30.066Z`, milliseconds).
 */
export function rfc3339(unixSeconds: number): string {
  const text = new Date(Math.round(unixSeconds * 1000)).toISOString();
  return text.endsWith(".000Z") ? `${text.slice(0, -5)}Z` : text;
}

function nonFinite(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  return x > 0 ? "+Inf" : "-Inf";
}
