import type { Budget } from "../../src/results/fit.js";
import type { QueryAsked } from "../../src/results/queryAsked.js";
import type { QueryData } from "./cutResults.js";

/** A query answer as a tool reads it, and what the call asked: the cases PYTHON_COMPAT keeps byte for byte. */
export interface LegacyCase {
  name: string;
  data: QueryData;
  budget: Budget;
  asked: QueryAsked;
}

const START = 1_795_800_000;
const STEP = 60;

/** Deterministic values with every digit Prometheus writes (a small linear congruential generator). */
function values(seed: number, count: number): Array<[number, string]> {
  let state = seed;
  return Array.from({ length: count }, (_, k): [number, string] => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const value = (state / 2_147_483_648) * 10 ** (seed % 7) + (k === count - 1 ? 0.5 : 0);
    return [START + k * STEP, String(value)];
  });
}

function matrix(series: number, points: number): QueryData {
  return {
    resultType: "matrix",
    result: Array.from({ length: series }, (_, index) => ({
      metric: { __name__: "container_memory_working_set_bytes", namespace: "shop", pod: `api-${index}` },
      values: values(index + 1, points),
    })),
  };
}

/**
 * A whole range answer, a cut one, and an instant vector (whole), each with the asked question as the
 * tools build it under PYTHON_COMPAT (order `highest`, form `legacy`); rendered with the Python layout
 * (indent 2). test/golden/legacy holds what commit 1344602 (before the compact form) wrote for each.
 */
export const LEGACY_CASES: readonly LegacyCase[] = [
  {
    name: "range-whole",
    data: matrix(3, 20),
    budget: { tokens: 20_000, bytes: 1_000_000 },
    asked: {
      query: "container_memory_working_set_bytes",
      range: { start: START, end: START + 19 * STEP, step: STEP },
      order: "highest",
      form: "legacy",
    },
  },
  {
    name: "range-cut",
    data: matrix(40, 240),
    budget: { tokens: 4_000, bytes: 1_000_000 },
    asked: {
      query: "container_memory_working_set_bytes",
      range: { start: START, end: START + 239 * STEP, step: STEP },
      order: "highest",
      form: "legacy",
    },
  },
  {
    name: "instant-vector",
    data: {
      resultType: "vector",
      result: Array.from({ length: 5 }, (_, index) => ({
        metric: { __name__: "up", job: "api", instance: `10.0.0.${index}:8080` },
        value: [START, (values(index + 3, 1)[0] as [number, string])[1]],
      })),
    },
    budget: { tokens: 20_000, bytes: 1_000_000 },
    asked: { query: "up", time: START, order: "highest", form: "legacy" },
  },
];
