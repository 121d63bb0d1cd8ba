import { describe, expect, it } from "vitest";
import { QueryResultCollector } from "../../src/results/queryResult.js";
import { renderToolResult } from "../../src/server.js";

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

function cut(data: { resultType: string; result: unknown[] }, budget: number, step?: string) {
  const collector = new QueryResultCollector({ maxBytes: budget }, { query: "cpu", step });
  for (const element of data.result) collector.element(element, bytesOf(element));
  const rendered = renderToolResult(collector.finish({ ...data, result: [] }, bytesOf(data)), budget);
  return {
    structured: rendered.structuredContent as {
      result: { metric: unknown; values: [number, string][] }[];
      truncated?: Record<string, unknown>;
    },
    note: (rendered.content[1] as { text: string } | undefined)?.text ?? "",
  };
}

describe("cutting one series that alone is over the budget", () => {
  const values = Array.from({ length: 5_000 }, (_, i): [number, string] => [
    1_700_000_000 + 15 * i,
    String(i % 97),
  ]);
  const series = { metric: { __name__: "cpu", pod: "a" }, values };

  it("thins its points evenly, says by how much, and stays within the budget", () => {
    const { structured, note } = cut({ resultType: "matrix", result: [series] }, 10_000, "15s");
    const [only] = structured.result;
    const thinned = structured.truncated?.thinned as {
      every: number;
      points_before: number;
      points_after: number;
    };
    expect(only?.metric).toEqual(series.metric);
    expect(thinned.points_before).toBe(5_000);
    expect(only?.values).toEqual(values.filter((_, i) => i % thinned.every === 0));
    expect(thinned.points_after).toBe(only?.values.length);
    expect(thinned.every).toBeGreaterThan(1);
    expect(note).toContain(`one point in every ${thinned.every} was kept`);
    expect(note).toContain("larger step than 15s");
    expect(bytesOf(structured) + Buffer.byteLength(note)).toBeLessThanOrEqual(10_000);
  });

  it("returns no series, and says so, when a sample's labels alone are over the budget", () => {
    const huge = { metric: { pod: "x".repeat(5_000) }, value: [1, "1"] };
    const { structured, note } = cut({ resultType: "vector", result: [huge] }, 2_000);
    expect(structured.result).toEqual([]);
    expect(structured.truncated).toMatchObject({ total: { series: 1 }, returned: { series: 0 } });
    expect(note).toContain("1 series, 0 returned");
  });
});
