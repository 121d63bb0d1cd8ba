/**
 * A matrix series read straight from the bytes Prometheus wrote it with, without building its points
 * as JavaScript values: on a cut answer nearly every point is read once, for statistics and a curve,
 * and never returned. `JSON.parse` of an element costs more than everything done with it after; this
 * reads the common shape, `{"metric":{…},"values":[[1700000000,"0.5"],…]}` (compact, keys in that
 * order, as Prometheus, Thanos and VictoriaMetrics write it), at a fraction of that, and leaves any
 * other shape (spaces, other keys, native histograms, anything odd) to the caller's `JSON.parse`.
 *
 * Numbers of up to 15 significant digits are read exactly as `Number()` reads them; of 16 to 19
 * (Prometheus writes up to 17), to within a few units in the last place of a double (a relative
 * 1e-15), far below the 5 significant digits a cut result writes them with.
 */

/** Where a series' points are read into: reused from one series to the next. */
export class PointBuffer {
  times = new Float64Array(1024);
  values = new Float64Array(1024);

  grow(): void {
    const times = new Float64Array(this.times.length * 2);
    const values = new Float64Array(this.values.length * 2);
    times.set(this.times);
    values.set(this.values);
    this.times = times;
    this.values = values;
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const UPPER_I = 0x49;
const UPPER_N = 0x4e;
const LOWER_A = 0x61;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;

const METRIC_KEY = bytesOf('{"metric":');
const VALUES_KEY = bytesOf(',"values":[');

/** More digits than this in one number: read by the caller's JSON.parse instead (a double holds 17). */
const MAX_DIGITS = 40;
/** A mantissa of up to 15 digits is an exact double (10^15 < 2^53); up to 19, within 4 units in the last place. */
const CLOSE_DIGITS = 19;
/** Exact powers of ten: a double holds 10^0 … 10^22 exactly. */
const POWERS = Array.from({ length: 23 }, (_, k) => 10 ** k);

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const LATIN1 = new TextDecoder("latin1");

/**
 * The series' `metric` (parsed) and how many points went into `buffer`; undefined when the bytes are
 * not in the common shape (nothing about them is known then, and `buffer` holds nothing useful).
 */
export function readSeries(
  raw: Uint8Array,
  buffer: PointBuffer,
): { metric: unknown; count: number } | undefined {
  if (!startsWith(raw, 0, METRIC_KEY)) return undefined;
  const metricEnd = objectEnd(raw, METRIC_KEY.length);
  if (metricEnd < 0 || !startsWith(raw, metricEnd, VALUES_KEY)) return undefined;
  let metric: unknown;
  try {
    metric = JSON.parse(UTF8.decode(raw.subarray(METRIC_KEY.length, metricEnd)));
  } catch {
    return undefined;
  }
  let at = metricEnd + VALUES_KEY.length;
  let count = 0;
  if (raw[at] === RBRACKET) {
    at++;
  } else {
    for (;;) {
      if (raw[at] !== LBRACKET) return undefined;
      const time = readNumber(raw, at + 1);
      if (time === undefined) return undefined;
      at = cursor;
      if (raw[at] !== COMMA || raw[at + 1] !== QUOTE) return undefined;
      const value = readNumber(raw, at + 2);
      if (value === undefined) return undefined;
      at = cursor;
      if (raw[at] !== QUOTE || raw[at + 1] !== RBRACKET) return undefined;
      at += 2;
      if (count === buffer.times.length) buffer.grow();
      buffer.times[count] = time;
      buffer.values[count] = value;
      count++;
      if (raw[at] === COMMA) {
        at++;
        continue;
      }
      if (raw[at] !== RBRACKET) return undefined;
      at++;
      break;
    }
  }
  return raw[at] === RBRACE && at + 1 === raw.length ? { metric, count } : undefined;
}

/** Where the last readNumber stopped, the byte after the number (a second result, without an allocation). */
let cursor = 0;

/**
 * A number at `at` (a JSON number, or inside a sample's quotes also NaN, +Inf, -Inf); sets `cursor`
 * past it. Undefined when there is none. (Reading past the end gives `undefined`, which no
 * comparison below accepts: the loops need no bounds checks.)
 */
function readNumber(raw: Uint8Array, at: number): number | undefined {
  let i = at;
  let c = raw[i] as number;
  const negative = c === MINUS;
  if (negative || c === PLUS) c = raw[++i] as number;
  if (c === UPPER_I) {
    if (raw[i + 1] !== LOWER_N || raw[i + 2] !== LOWER_F) return undefined;
    cursor = i + 3;
    return negative ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (c === UPPER_N) {
    if (i !== at || raw[i + 1] !== LOWER_A || raw[i + 2] !== UPPER_N) return undefined;
    cursor = i + 3;
    return Number.NaN;
  }
  let mantissa = 0;
  let digits = 0;
  let exponent = 0;
  while (c >= ZERO && c <= NINE) {
    mantissa = mantissa * 10 + (c - ZERO);
    digits++;
    c = raw[++i] as number;
  }
  if (c === DOT) {
    c = raw[++i] as number;
    while (c >= ZERO && c <= NINE) {
      mantissa = mantissa * 10 + (c - ZERO);
      digits++;
      exponent--;
      c = raw[++i] as number;
    }
  }
  if (digits === 0 || digits > MAX_DIGITS) return undefined;
  if (c === LOWER_E || c === UPPER_E) {
    c = raw[++i] as number;
    const sign = c === MINUS ? -1 : 1;
    if (c === MINUS || c === PLUS) c = raw[++i] as number;
    let power = 0;
    const first = i;
    while (c >= ZERO && c <= NINE) {
      power = power * 10 + (c - ZERO);
      c = raw[++i] as number;
    }
    if (i === first) return undefined;
    exponent += sign * power;
  }
  cursor = i;
  let value: number;
  // Leading zeros add no precision to count: only long numbers need them counted.
  if (
    exponent >= -22 &&
    exponent <= 22 &&
    (digits <= CLOSE_DIGITS || significant(raw, at, i) <= CLOSE_DIGITS)
  ) {
    // The power of ten is exact, and so is a mantissa of up to 15 digits: one correctly rounded
    // operation (Clinger's fast path), `Number()`'s own result. Up to 19 digits the mantissa rounds
    // once per digit past the 15th: within a few units in the last place.
    value = exponent < 0 ? mantissa / (POWERS[-exponent] as number) : mantissa * (POWERS[exponent] as number);
  } else {
    // Subnormal, huge, or very long: Number() itself.
    value = Number(LATIN1.decode(raw.subarray(negative || raw[at] === PLUS ? at + 1 : at, i)));
  }
  return negative ? -value : value;
}

/** Digits of the number in `[at, end)` from its first non-zero one, up to any exponent. */
function significant(raw: Uint8Array, at: number, end: number): number {
  let count = 0;
  let started = false;
  for (let i = at; i < end; i++) {
    const c = raw[i] as number;
    if (c === LOWER_E || c === UPPER_E) break;
    if (c < ZERO || c > NINE) continue;
    if (c !== ZERO) started = true;
    if (started) count++;
  }
  return count;
}

/** The index just past the object that starts at `at` (strings skipped), or -1. */
function objectEnd(raw: Uint8Array, at: number): number {
  if (raw[at] !== LBRACE) return -1;
  let depth = 0;
  for (let i = at; i < raw.length; i++) {
    const c = raw[i];
    if (c === QUOTE) {
      for (i++; i < raw.length && raw[i] !== QUOTE; i++) if (raw[i] === BACKSLASH) i++;
    } else if (c === LBRACE) {
      depth++;
    } else if (c === RBRACE && --depth === 0) {
      return i + 1;
    }
  }
  return -1;
}

function startsWith(raw: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > raw.length) return false;
  for (let i = 0; i < prefix.length; i++) if (raw[at + i] !== prefix[i]) return false;
  return true;
}

function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
