// Figure: what matching label values with re2js (src/promql/matchers.ts) costs against the JavaScript
// RegExp the RE2-to-JavaScript translator produced before it: ordinary selectors over a thousand label
// values, and a pathological regex, `(a+)+b`, on a value of a's, interleaved in one run. The baseline is
// the RegExp that translator built for these very patterns (`^(?:…)$`, flags `su`, `(?i)` as `i`): they
// need none of its rewriting, so the comparison needs no copy of it.
import { loadRegexEngine } from "../../../src/promql/matchers.js";
import type { BenchContext } from "../context.js";
import { interleave } from "../measure.js";
import type { Figure } from "../report.js";

/** Label values of the kind selectors filter: pod names, alert names, jobs. */
function labelValues(count: number): string[] {
  const kinds = ["api", "web", "worker", "KubePodCrashLooping", "KubeAPIDown", "node-exporter"];
  return Array.from(
    { length: count },
    (_, i) => `${kinds[i % kinds.length]}-${(i * 7919).toString(16)}-x${i}`,
  );
}

const ORDINARY = ["api-.*|web-.*", "(?i)kube.*", "[a-z]+-[0-9a-f]{4}-.*", "worker-.*-x1\\d+"];

/** The RegExp the old translator built for a pattern that needs no rewriting. */
function translated(pattern: string): RegExp {
  const insensitive = pattern.startsWith("(?i)");
  const body = insensitive ? pattern.slice(4) : pattern;
  return new RegExp(`^(?:${body})$`, insensitive ? "sui" : "su");
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const { RE2JS } = await loadRegexEngine();
  const values = labelValues(1000);
  const oldOrdinary = ORDINARY.map(translated);
  const newOrdinary = ORDINARY.map((p) => RE2JS.compile(p, RE2JS.DOTALL));
  const count = (test: (value: string) => boolean) => values.filter(test).length;
  const ordinaryOld = async () => oldOrdinary.reduce((n, r) => n + count((v) => r.test(v)), 0);
  const ordinaryNew = async () => newOrdinary.reduce((n, r) => n + count((v) => r.testExact(v)), 0);
  if ((await ordinaryOld()) !== (await ordinaryNew())) throw new Error("the engines disagree");
  const [ordinaryRe2, ordinaryRegExp] = await interleave(ordinaryNew, ordinaryOld, ctx.quick ? 5 : 40, 5);

  // Long enough that backtracking shows (2^n steps), short enough that the baseline ends in a run.
  const hostileLength = 22;
  const hostile = "a".repeat(hostileLength);
  const oldHostile = translated("(a+)+b");
  const newHostile = RE2JS.compile("(a+)+b", RE2JS.DOTALL);
  const [hostileRe2, hostileRegExp] = await interleave(
    async () => newHostile.testExact(hostile),
    async () => oldHostile.test(hostile),
    ctx.quick ? 3 : 15,
    2,
  );
  const long = "a".repeat(100_000);
  const t = performance.now();
  newHostile.testExact(long);
  const longMs = performance.now() - t;
  return [
    {
      id: "regex-ordinary",
      title: `Matching ${values.length} label values against ${ORDINARY.length} ordinary selectors' regexes: re2js vs JavaScript RegExp (the old translator's)`,
      unit: "ms",
      ours: ordinaryRe2,
      baseline: { name: "JavaScript RegExp", value: ordinaryRegExp },
      ratio: ordinaryRegExp.p50 / ordinaryRe2.p50,
      target: "report the cost (filtering alerts by selector pays it once per alert and regex)",
      met: true,
      note: `${((ordinaryRe2.p50 * 1000) / (values.length * ORDINARY.length)).toFixed(2)} µs per value and regex at p50`,
    },
    {
      id: "regex-hostile",
      title: `(a+)+b against ${hostileLength} a's: re2js vs JavaScript RegExp (backtracking)`,
      unit: "ms",
      ours: hostileRe2,
      baseline: { name: "JavaScript RegExp", value: hostileRegExp },
      ratio: hostileRegExp.p50 / hostileRe2.p50,
      target: "linear time: faster than backtracking",
      met: hostileRe2.p50 < hostileRegExp.p50,
      note: `re2js on 100,000 a's: ${longMs.toFixed(1)} ms (the RegExp would not finish)`,
    },
  ];
}
