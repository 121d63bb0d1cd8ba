/**
 * How close the token estimator (src/results/tokens.ts) is to the real tokenizers, and how fast it is.
 *
 * For each kind of text the server emits (test/support/resultTexts.ts's corpus, compact and indented), and
 * for uncommon names and values it has never seen (test/support/uncommonTexts.ts), prints
 * the least, median and largest max(claude, o200k) / estimate: over all texts (safety: must stay at most 1)
 * and over those of 1,000+ tokens (tightness). Then the estimator's throughput on ASCII JSON, both entry
 * points.
 *
 * Run (a few seconds a seed; seeds default to 1,2,3):
 *
 *   npx esbuild test/bench/tokenCalibration.ts --bundle --platform=node --format=esm --packages=external \
 *     --outfile=test/bench/.out/tokenCalibration.mjs --log-level=warning \
 *     && node test/bench/.out/tokenCalibration.mjs 1,2,3
 *
 * (or `npx tsx test/bench/tokenCalibration.ts 1,2,3` where tsx is installed).
 */
import { estimateTokens, estimateTokensOfBytes } from "../../src/results/tokens.js";
import { resultCorpus, resultText, seededSource } from "../support/resultTexts.js";
import { realTokens } from "../support/tokenizers.js";
import { uncommonText } from "../support/uncommonTexts.js";

const seeds = (process.argv[2] ?? "1,2,3").split(",").map(Number);

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN).toFixed(3);
  return sorted.length ? `${at(0)} / ${at(0.5)} / ${at(1)}` : "-";
};

const all = new Map<string, number[]>();
const large = new Map<string, number[]>();
for (const { kind, indented, text } of resultCorpus(seeds)) {
  const { claude, o200k } = realTokens(text);
  const real = Math.max(claude, o200k);
  const ratio = real / estimateTokens(text);
  const key = `${kind}${indented ? " (indented)" : ""}`;
  all.set(key, [...(all.get(key) ?? []), ratio]);
  if (real >= 1000) large.set(key, [...(large.get(key) ?? []), ratio]);
}
// Text the corpus does not show: uncommon names and values (the estimator's safety floor is for them).
for (const seed of seeds) {
  for (let i = 0; i < 40; i++) {
    const text = uncommonText(seededSource(seed * 1_000 + i), i % 2 === 0 ? 400 : 8_000);
    const { claude, o200k } = realTokens(text);
    const real = Math.max(claude, o200k);
    const ratio = real / estimateTokens(text);
    all.set("uncommon", [...(all.get("uncommon") ?? []), ratio]);
    if (real >= 1000) large.set("uncommon", [...(large.get("uncommon") ?? []), ratio]);
  }
}
console.log(`max(claude, o200k) / estimate, seeds ${seeds.join(",")}: min / median / max`);
console.log(`${"kind".padEnd(26)}${"all texts".padEnd(26)}1,000+ tokens`);
for (const [key, ratios] of all) {
  console.log(`${key.padEnd(26)}${summary(ratios).padEnd(26)}${summary(large.get(key) ?? [])}`);
}

// Throughput: ~20 MB of compact matrices (ASCII JSON), best of 5.
const src = seededSource(5);
const parts: string[] = [];
let length = 0;
while (length < 20_000_000) {
  const { text } = resultText(src, "matrix", false, { series: 20, points: 240 });
  parts.push(text);
  length += text.length;
}
const json = parts.join(",");
const bytes = new TextEncoder().encode(json);
for (const [name, run] of [
  ["estimateTokens", () => estimateTokens(json)],
  ["estimateTokensOfBytes", () => estimateTokensOfBytes(bytes)],
] as const) {
  run();
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  console.log(
    `${name}: ${(bytes.length / 1e6 / (best / 1000)).toFixed(0)} MB/s on ${(bytes.length / 1e6).toFixed(0)} MB`,
  );
}
