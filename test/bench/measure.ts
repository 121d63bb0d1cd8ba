/** Timing samples in milliseconds and what the report needs of them. */
export interface Stats {
  p50: number;
  p99: number;
  n: number;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), n: sorted.length };
}

/**
 * Runs both sides alternately (a, b, a, b…) after a warm-up, so both see the same machine state,
 * and returns their samples in milliseconds.
 */
export async function interleave(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  iterations: number,
  warmup: number,
): Promise<[Stats, Stats]> {
  const sa: number[] = [];
  const sb: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    let t = performance.now();
    await a();
    const da = performance.now() - t;
    t = performance.now();
    await b();
    const db = performance.now() - t;
    if (i >= warmup) {
      sa.push(da);
      sb.push(db);
    }
  }
  return [stats(sa), stats(sb)];
}

export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
