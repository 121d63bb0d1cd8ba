import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Budget } from "../../src/results/fit.js";
import type { QueryAsked } from "../../src/results/queryAsked.js";
import { type QueryData, rendered } from "../helpers/cutResults.js";

/**
 * PYTHON_COMPAT answers, byte for byte as before issue 38: test/golden/legacyQueryAnswers.json holds the
 * texts the code before it wrote for these cases (whole and cut, compact and indented), captured once.
 */
const GOLDEN = JSON.parse(
  readFileSync(new URL("../golden/legacyQueryAnswers.json", import.meta.url), "utf8"),
) as Record<string, string[]>;

const TIME = 1_795_000_000;
const RANGE = { start: TIME, end: TIME + 3600, step: 60 };

function series(count: number, points: number) {
  return Array.from({ length: count }, (_, s) => ({
    metric: {
      __name__: "container_memory_working_set_bytes",
      namespace: "shop",
      pod: `api-${s}`,
      node: `ip-10-0-${s % 4}-5`,
    },
    values: Array.from({ length: points }, (_, i): [number, string] => [
      RANGE.start + 60 * i,
      String((s % 7) * 1e6 + ((i * 37 + s) % 11) * 1234.5678),
    ]),
  }));
}

const CASES: Array<{ name: string; data: QueryData; budget: Budget; asked: QueryAsked }> = [
  {
    name: "whole matrix",
    data: { resultType: "matrix", result: series(3, 20) },
    budget: { tokens: 20_000, bytes: 1_000_000 },
    asked: { query: "m", range: RANGE, order: "highest", form: "legacy" },
  },
  {
    name: "cut matrix",
    data: { resultType: "matrix", result: series(60, 61) },
    budget: { tokens: 3_000, bytes: 1_000_000 },
    asked: { query: "m", range: RANGE, order: "highest", form: "legacy" },
  },
  {
    name: "cut vector",
    data: {
      resultType: "vector",
      result: series(80, 1).map(({ metric, values }) => ({
        metric,
        value: [TIME, values[0]?.[1] as string],
      })),
    },
    budget: { tokens: 1_500, bytes: 1_000_000 },
    asked: { query: "m", time: TIME, order: "highest", form: "legacy" },
  },
];

describe("the legacy form (PYTHON_COMPAT)", () => {
  for (const { name, data, budget, asked } of CASES) {
    for (const indent of [undefined, 2]) {
      const label = `${name}${indent ? " (indented)" : ""}`;
      it(`writes the ${label} answer byte for byte as before`, async () => {
        const { texts } = await rendered(data, budget, asked, indent);
        expect(GOLDEN[label]).toBeDefined();
        expect(texts).toEqual(GOLDEN[label]);
      });
    }
  }

  it("the same cases in the compact form carry the lean table (the fixture is not what any form writes)", async () => {
    const [whole] = CASES;
    if (whole === undefined) throw new Error("no case");
    const { texts, json } = await rendered(whole.data, whole.budget, { ...whole.asked, form: "compact" });
    expect(texts).not.toEqual(GOLDEN["whole matrix"]);
    expect(json.series_stats?.columns).toEqual(expect.arrayContaining(["pod", "node"]));
  });
});
