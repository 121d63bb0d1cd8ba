// Figure: what change points (issue 38, src/results/changePoint.ts) cost when a cut range answer is
// described: the same answer's series described from their bytes, as the collector reads them, with and
// without change detection, interleaved in one run. The answer is the on-call dataset's working set of
// 200 pods over a day at 60 s (1,441 points each), the planted series' day included.
import { Description } from "../../../src/results/description.js";
import { ON_CALL_DATASET, onCallSeries } from "../../support/onCallDataset.js";
import type { BenchContext } from "../context.js";
import { interleave } from "../measure.js";
import type { Figure } from "../report.js";

const ANSWERED = new Set([
  "container_memory_working_set_bytes",
  "planted_change_signal",
  "worker_queue_depth",
]);

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const { start, end, intervalSeconds: step } = ON_CALL_DATASET;
  const encoder = new TextEncoder();
  // Each series as Prometheus writes it in a range answer: its bytes are what the describer reads.
  const answer: Uint8Array[] = [];
  for (const series of onCallSeries()) {
    if (!ANSWERED.has(series.name)) continue;
    const values = Array.from(series.values, (value, index) => [start + index * step, String(value)]);
    answer.push(
      encoder.encode(JSON.stringify({ metric: { __name__: series.name, ...series.labels }, values })),
    );
  }
  const asked = { query: "q", range: { start, end, step }, order: "unusual", form: "compact" } as const;
  const describe = async (findChanges: boolean) => {
    const description = new Description(asked, { tokens: 20_000, bytes: 1_000_000 }, findChanges);
    for (const raw of answer) if (description.addBytes(raw) === undefined) throw new Error("not a series");
    return description.result("series");
  };
  const found = (await describe(true)).items.filter((item) => item.kind === "series" && item.change).length;
  const [withChanges, without] = await interleave(
    () => describe(true),
    () => describe(false),
    ctx.quick ? 3 : 40,
    ctx.quick ? 1 : 5,
  );
  const perSeries = ((withChanges.p50 - without.p50) * 1000) / answer.length;
  return [
    {
      id: "change-points",
      title: `Describing a cut range answer (${answer.length} series × 1,441 points) with change points vs without`,
      unit: "ms",
      ours: withChanges,
      baseline: { name: "same answer, no change detection", value: without },
      ratio: without.p50 / withChanges.p50,
      target: "report the cost (a warm tools/call of a cut answer pays it once per series)",
      met: true,
      note: `${perSeries.toFixed(1)} µs per series at p50; ${found} of ${answer.length} series have a change`,
    },
  ];
}
