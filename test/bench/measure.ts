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
 * and returns their samples in milliseconds. `settle`, when given, runs after each call, untimed.
 */
export async function interleave(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  iterations: number,
  warmup: number,
  settle?: () => Promise<void>,
): Promise<[Stats, Stats]> {
  const sa: number[] = [];
  const sb: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    let t = performance.now();
    await a();
    const da = performance.now() - t;
    if (settle) await settle();
    t = performance.now();
    await b();
    const db = performance.now() - t;
    if (settle) await settle();
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

/**
 * Like `interleave` for any number of sides: each round runs every side once, the first side of the
 * round rotating, so that none always runs right after the same other.
 */
export async function interleaveMany(
  sides: readonly (() => Promise<unknown>)[],
  iterations: number,
  warmup: number,
  settle?: () => Promise<void>,
): Promise<Stats[]> {
  const samples: number[][] = sides.map(() => []);
  for (let i = 0; i < warmup + iterations; i++) {
    for (let k = 0; k < sides.length; k++) {
      const side = (i + k) % sides.length;
      const run = sides[side] as () => Promise<unknown>;
      const t = performance.now();
      await run();
      const d = performance.now() - t;
      if (i >= warmup) samples[side]?.push(d);
      if (settle) await settle();
    }
  }
  return samples.map(stats);
}
