import { parseSample } from "../../src/results/numbers.js";

/** A series (or sample) of a query answer, read back as the points it stands for. */
export interface SeriesPoints {
  metric: Record<string, string>;
  points: Array<[number, number]>;
}

/**
 * The points of every element of a query answer (its `data`, or a tool's text parsed), whichever form it
 * is written in: a compact curve (`range` header, `values[k]` at start + k × step_seconds, a bucket's
 * `[first, second]` as two points at the bucket's time, `null` none), Prometheus's `[t, "v"]` pairs, or a
 * sample's `value` pair. Values are numbers ("NaN", "+Inf", "-Inf" read as Prometheus spells them).
 */
export function queryPoints(answer: unknown): SeriesPoints[] {
  const { result, range } = answer as {
    result: Array<{ metric?: Record<string, string>; values?: unknown[]; value?: [number, string] }>;
    range?: { start: string; step_seconds: number };
  };
  return result.map((element) => {
    const metric = element.metric ?? {};
    if (element.value !== undefined)
      return { metric, points: [[element.value[0], parseSample(element.value[1])]] };
    const values = element.values ?? [];
    if (range === undefined) {
      return { metric, points: values.map((pair) => pairPoint(pair as [number, string])) };
    }
    const start = Date.parse(range.start) / 1000;
    const points: Array<[number, number]> = [];
    values.forEach((value, k) => {
      const time = start + k * range.step_seconds;
      if (value === null) return;
      for (const one of Array.isArray(value) ? value : [value]) points.push([time, numberOf(one)]);
    });
    return { metric, points };
  });
}

/** The points of the answer's only series (or sample). */
export function onlyPoints(answer: unknown): Array<[number, number]> {
  const series = queryPoints(answer);
  if (series.length !== 1) throw new Error(`expected one series, got ${series.length}`);
  return (series[0] as SeriesPoints).points;
}

function pairPoint([time, text]: [number, string | number]): [number, number] {
  return [time, numberOf(text)];
}

function numberOf(value: unknown): number {
  return typeof value === "number" ? value : parseSample(value);
}
