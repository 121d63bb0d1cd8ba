// The change-point finder's daily cycle (changePoint.ts): one sine of a day's period, fitted to the
// buckets by least squares, to be taken out before looking for a change over a day or more.

import { type Buckets, centreOf } from "./changeBuckets.js";
import type { QueryRange } from "./curves.js";

export const DAY = 86_400;

/**
 * The series' daily cycle, fitted by least squares as one sine of a day's period (mean removed): taken
 * out before looking for a change when that fits better, so that a step on top of a daily cycle shows
 * and the cycle alone does not.
 */
export interface DailyCycle {
  /** The cycle's value at a time (its mean is 0 over the buckets). */
  at: (time: number) => number;
  /** Its value at each bucket. */
  values: Float64Array;
  amplitude: number;
}

const angleOf = (time: number) => (2 * Math.PI * (time % DAY)) / DAY;

export function phasesOf(buckets: Buckets, range: QueryRange): { sin: Float64Array; cos: Float64Array } {
  const sin = new Float64Array(buckets.n);
  const cos = new Float64Array(buckets.n);
  for (let index = 0; index < buckets.n; index++) {
    const angle = angleOf(centreOf(buckets, range, index));
    sin[index] = Math.sin(angle);
    cos[index] = Math.cos(angle);
  }
  return { sin, cos };
}

export function dailyCycle({ y, n, phases }: Buckets): DailyCycle {
  if (phases === undefined) return { at: () => 0, values: new Float64Array(n), amplitude: 0 };
  let ss = 0;
  let cc = 0;
  let sc = 0;
  let s1 = 0;
  let c1 = 0;
  let sy = 0;
  let cy = 0;
  let y1 = 0;
  for (let index = 0; index < n; index++) {
    const sin = phases.sin[index] as number;
    const cos = phases.cos[index] as number;
    const value = y[index] as number;
    ss += sin * sin;
    cc += cos * cos;
    sc += sin * cos;
    s1 += sin;
    c1 += cos;
    sy += sin * value;
    cy += cos * value;
    y1 += value;
  }
  // Centred sums: the fit of y ≈ mean + a·sin + b·cos, solved for a and b.
  const css = ss - (s1 * s1) / n;
  const ccc = cc - (c1 * c1) / n;
  const csc = sc - (s1 * c1) / n;
  const csy = sy - (s1 * y1) / n;
  const ccy = cy - (c1 * y1) / n;
  const determinant = css * ccc - csc * csc;
  if (!(determinant > 1e-9 * n * n)) return { at: () => 0, values: new Float64Array(n), amplitude: 0 };
  const a = (csy * ccc - ccy * csc) / determinant;
  const b = (ccy * css - csy * csc) / determinant;
  const sMean = s1 / n;
  const cMean = c1 / n;
  const values = phases.sin.map(
    (sin, index) => a * (sin - sMean) + b * ((phases.cos[index] as number) - cMean),
  );
  return {
    at: (time: number) => a * (Math.sin(angleOf(time)) - sMean) + b * (Math.cos(angleOf(time)) - cMean),
    values,
    amplitude: Math.hypot(a, b),
  };
}
