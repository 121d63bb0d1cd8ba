import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { ChangePoint } from "../../src/results/changePoint.js";
import { Measure } from "../../src/results/fit.js";
import { leanTable, type TableItem } from "../../src/results/leanTable.js";
import { rfc3339, tableNumber } from "../../src/results/numbers.js";
import { SeriesStats } from "../../src/results/stats.js";
import { tableSeries } from "../support/cutResults.js";

const T0 = 1_795_000_000;

/**
 * Series of one family: a pod each; node (and its instance) from a few, so that node determines instance;
 * an image per container; some series without a label; values from a small pool so that series alike
 * but for their pod are common.
 */
const family = fc
  .record({
    pods: fc.integer({ min: 2, max: 40 }),
    nodes: fc.integer({ min: 1, max: 6 }),
    containers: fc.integer({ min: 1, max: 3 }),
    levels: fc.integer({ min: 1, max: 4 }),
    seed: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
    withChange: fc.boolean(),
  })
  .map(({ pods, nodes, containers, levels, seed, withChange }) =>
    Array.from({ length: pods }, (_, pod): TableItem => {
      const r = seed[pod % seed.length] as number;
      const node = r % nodes;
      const container = (r >> 3) % containers;
      const metric: Record<string, string> = {
        __name__: "container_memory_working_set_bytes",
        pod: `shop-api-7d9f8b6c4-${pod.toString(36).padStart(5, "x")}`,
        node: `ip-10-0-${node}-5.eu-west-1.compute.internal`,
        instance: `10.0.${node}.5:10250`,
        container: `app-${container}`,
        image: `registry.example.com/shop/app-${container}:v1.2.${container}`,
      };
      if (r % 11 === 0) delete metric.container;
      const stats = new SeriesStats();
      const level = (r >> 5) % levels;
      for (let i = 0; i < 3; i++) stats.add(T0 + 60 * i, level * 1e6 + i);
      const change: ChangePoint | undefined =
        withChange && level > 0
          ? { at: T0 + 60, before: 0, after: level, score: 3, ...(level > 2 ? { endedAt: T0 + 120 } : {}) }
          : undefined;
      return { kind: "series", metric, stats, change };
    }),
  );

describe("the lean series_stats table", () => {
  it("gives back every series' labels and numbers exactly, through collapsed rows, lookups and same", () => {
    const counts = { collapsed: 0, lookup: 0, same: 0, plain: 0 };
    fc.assert(
      fc.property(family, (items) => {
        const { heading, rows } = leanTable(items, new Measure({}));
        const written = { ...heading, rows: rows.first(rows.count) };
        if (written.rows.some((row) => row.some((cell) => Array.isArray(cell)))) counts.collapsed++;
        else counts.plain++;
        if (written.label_lookup !== undefined) counts.lookup++;
        if (written.same !== undefined) counts.same++;
        expect(rows.series(rows.count)).toBe(items.length);
        const got = tableSeries(written as Parameters<typeof tableSeries>[0]);
        // Series in the order given, a collapsed row's members where its first one was: compare as sets.
        const key = (labels: unknown) => JSON.stringify(Object.entries(labels as object).sort());
        const wanted = new Map(items.map((item) => [key(item.metric), item]));
        expect(got).toHaveLength(items.length);
        for (const { labels, cells } of got) {
          const item = wanted.get(key(labels));
          if (item?.kind !== "series") throw new Error(`no series has labels ${key(labels)}`);
          wanted.delete(key(labels));
          const { stats, change } = item;
          expect(cells).toEqual({
            min: tableNumber(stats.min),
            max: tableNumber(stats.max),
            avg: tableNumber(stats.avg),
            last: tableNumber(stats.last),
            samples: stats.samples,
            max_at: rfc3339(stats.maxAt),
            changed_at: change ? rfc3339(change.at) : null,
            before: change ? change.before : null,
            after: change ? change.after : null,
            ...(items.some((one) => one.kind === "series" && one.change?.endedAt !== undefined)
              ? { ended_at: change?.endedAt === undefined ? null : rfc3339(change.endedAt) }
              : {}),
          });
        }
      }),
      { numRuns: 300 },
    );
    for (const [branch, count] of Object.entries(counts))
      expect(count, `branch "${branch}" ran`).toBeGreaterThanOrEqual(5);
  });

  it("puts a row's first series where it ranks: the first row is the first series'", () => {
    fc.assert(
      fc.property(family, (items) => {
        const { heading, rows } = leanTable(items, new Measure({}));
        const [first] = tableSeries({ ...heading, rows: rows.first(1) } as Parameters<typeof tableSeries>[0]);
        expect(first?.labels).toEqual(items[0]?.metric);
      }),
      { numRuns: 100 },
    );
  });
});
