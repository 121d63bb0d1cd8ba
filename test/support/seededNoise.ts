/**
 * Seeded random numbers for tests: the same seed gives the same numbers every run, on every machine.
 * mulberry32 for uniform numbers; Box–Muller for standard normal noise.
 */

/** A uniform stream in [0, 1) from a 32-bit seed (mulberry32). */
export function uniformStream(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal stream from a 32-bit seed (Box–Muller over uniformStream). */
export function normalStream(seed: number): () => number {
  const next = uniformStream(seed);
  return () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}
