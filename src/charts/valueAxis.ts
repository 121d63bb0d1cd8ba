import type { Unit } from "./units.js";

/** The value axis of a chart: its bounds and tick interval (in the values' own terms), and its labels. */
export interface ValueAxis {
  min: number;
  max: number;
  interval: number;
  /** A tick's label in the axis's unit and scale: `1.5 GiB`, `250 ms`, `90 %`, `12 k`. */
  label(value: number): string;
}

/** A scale of a unit: values are divided by `factor` and written with `suffix`. */
type Scale = readonly [factor: number, suffix: string];

const BINARY: readonly Scale[] = [
  [1, " B"],
  [1024, " KiB"],
  [1024 ** 2, " MiB"],
  [1024 ** 3, " GiB"],
  [1024 ** 4, " TiB"],
  [1024 ** 5, " PiB"],
];
const TIME: readonly Scale[] = [
  [1e-6, " µs"],
  [1e-3, " ms"],
  [1, " s"],
  [60, " min"],
  [3600, " h"],
  [86_400, " d"],
];
/** Plain numbers: SI prefixes from a thousand up (below 1 a decimal reads better than `m`, which could be minutes). */
const SI: readonly Scale[] = [
  [1, ""],
  [1e3, " k"],
  [1e6, " M"],
  [1e9, " G"],
  [1e12, " T"],
  [1e15, " P"],
];

function scalesOf(unit: Unit | undefined): readonly Scale[] {
  switch (unit) {
    case "bytes":
    case "bytes/s":
      return BINARY;
    case "seconds":
      return TIME;
    case "ratio":
      return [[0.01, " %"]];
    case "percent":
      return [[1, " %"]];
    default:
      return SI;
  }
}

/** The most decimals a tick is written with; finer ones are in exponent form. */
const MAX_DECIMALS = 9;

/** Ticks aimed at: about five intervals across the plot's height. */
const TARGET_INTERVALS = 5;

/**
 * The axis over [low, high] in `unit`: the largest scale of the unit the larger magnitude reaches
 * (GiB for 3.2e9 bytes), and "nice" ticks in that scale (1, 2 or 5 × a power of ten of it), so
 * that the labels read `0.5 GiB, 1 GiB, 1.5 GiB` rather than the bytes' own round numbers.
 */
export function valueAxis(low: number, high: number, unit: Unit | undefined): ValueAxis | undefined {
  const scales = scalesOf(unit);
  const magnitude = Math.max(Math.abs(low), Math.abs(high));
  const [factor, suffix] = [...scales].reverse().find(([at]) => magnitude >= at) ?? (scales[0] as Scale);
  let [from, to] = [low / factor, high / factor];
  if (!(to - from > Math.max(Math.abs(from), Math.abs(to)) * 1e-12 && to - from > Number.MIN_VALUE * 1e10)) {
    // A flat line (or one whose changes no tick could tell apart): room above and below, a tenth of its value (or 1 about 0).
    const pad = Math.abs(from) > Number.MIN_VALUE * 1e10 ? Math.abs(from) / 10 : 1;
    [from, to] = [from - pad, to + pad];
  }
  const interval = niceInterval((to - from) / TARGET_INTERVALS);
  // Values near the largest numbers: no interval between them is a number (ECharts's own axis then).
  // (A quotient that underflows rounds to 0: the bound is moved out a tick where it would cut a value off.)
  let min = Math.floor(from / interval) * interval;
  if (min * factor > low) min -= interval;
  let max = Math.ceil(to / interval) * interval;
  if (max * factor < high) max += interval;
  if (!(interval > 0 && Number.isFinite(min * factor) && Number.isFinite(max * factor))) return undefined;
  const decimals = decimalsOf(interval);
  // Ticks finer than a billionth: in exponent form, with the digits that tell them apart.
  const largest = Math.max(Math.abs(min), Math.abs(max));
  const exponentDigits = Math.max(0, Math.floor(Math.log10(largest)) - Math.floor(Math.log10(interval)));
  const rateSuffix = unit === "bytes/s" || unit === "/s" ? "/s" : "";
  const unitText = unit === "/s" && suffix === "" ? " /s" : `${suffix}${rateSuffix}`;
  return {
    min: min * factor,
    max: max * factor,
    interval: interval * factor,
    label(value) {
      const scaled = value / factor;
      if (decimals > MAX_DECIMALS) return `${scaled.toExponential(exponentDigits)}${unitText}`;
      const text = scaled.toFixed(decimals);
      // -0.0 is written 0.
      return `${Number(text) === 0 ? (0).toFixed(decimals) : text}${unitText}`;
    },
  };
}

/** The nice number (1, 2 or 5 × a power of ten: labels of one significant digit) at or above `raw`. */
function niceInterval(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((nice) => nice * power >= raw * (1 - 1e-9)) ?? 10;
  return step * power;
}

/** The decimals that write every multiple of `interval` exactly (5 × 10^-2 needs 2). */
function decimalsOf(interval: number): number {
  for (let decimals = 0; decimals < 15; decimals++) {
    const scaled = interval * 10 ** decimals;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * scaled) return decimals;
  }
  return 15;
}
