import * as z from "zod";
import { ToolError } from "./types.js";

/** Present only when the result was cut; its fields are in docs/large-results.md. */
export const truncation = z
  .looseObject({})
  .optional()
  .describe(
    "Only when cut, and first: note (what was cut, the totals, the next step), cut_by, total, returned, order",
  );

/** Prometheus's `data` for /query and /query_range; extra keys (e.g. `stats`) pass through untouched. */
export const queryData = z.looseObject({
  resultType: z.enum(["matrix", "vector", "scalar", "string"]).describe("Shape of result"),
  result: z
    .array(z.union([z.looseObject({}), z.number(), z.string()]))
    .describe("Series (matrix/vector) or [time, value] (scalar/string)"),
});

/** ExecuteQuery's and ExecuteRangeQuery's output schema, made when a tool first reads it (tools/types.ts defineTool). */
export function queryResult() {
  return queryData.extend({
    truncated: truncation,
    series_stats: z
      .looseObject({})
      .optional()
      .describe(
        "With 2+ series: every series' statistics and change (common_labels, label_lookup, columns, same, rows)",
      ),
  });
}

/**
 * Checks an upstream payload against a result schema and returns it as received (not a re-built copy).
 * A mismatch is the server's fault and is reported plainly rather than as a validation dump.
 */
export function expectShape<T extends z.ZodType>(schema: T, data: unknown, what: string): z.output<T> {
  if (!schema.safeParse(data).success)
    throw new ToolError(`Prometheus answered with an unexpected ${what} payload.`, "upstream_failed");
  return data as z.output<T>;
}
