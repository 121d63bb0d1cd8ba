import type { Stats } from "./measure.js";

/** One line of the benchmark report. */
export interface Figure {
  id: string;
  title: string;
  unit: string;
  ours: Stats | number;
  /** What ours is compared with, measured in the same run. */
  baseline?: { name: string; value: Stats | number };
  /** baseline / ours for times (higher is better for us), or a plain value where no baseline applies. */
  ratio?: number;
  target: string;
  met: boolean;
  note?: string;
}

export function value(x: Stats | number): number {
  return typeof x === "number" ? x : x.p50;
}

export function describe(x: Stats | number, unit: string): string {
  if (typeof x === "number") return `${x} ${unit}`;
  return `p50 ${x.p50.toFixed(3)} / p99 ${x.p99.toFixed(3)} ${unit} (n=${x.n})`;
}

export function markdownTable(figures: Figure[]): string {
  const rows = figures.map((f) =>
    [
      f.title,
      describe(f.ours, f.unit),
      f.baseline ? `${f.baseline.name}: ${describe(f.baseline.value, f.unit)}` : "—",
      f.ratio === undefined ? "—" : `${f.ratio.toFixed(2)}×`,
      f.target,
      f.met ? "met" : "**missed**",
    ].join(" | "),
  );
  return [
    "| figure | ours | baseline (same run) | ratio | target | |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) => `| ${r} |`),
  ].join("\n");
}
