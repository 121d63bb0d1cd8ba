// Figure: points per token of cut range answers (issue 38, item 3). The on-call dataset's range questions
// whose answer is cut, each asked of this handler (compact curves: `range` once, `values` arrays on
// start + k × step, see src/results/compactCurve.ts) and of BASE_REVISION (a `[t, "v"]` pair per point),
// at the default budget: the points the answer's curves stand for (`truncated.returned.points`) over
// the tokens of the answer's whole text, by both real tokenizers; the ratio is the lower of the two.
// Then the trade of significant digits (SIGNIFICANT_DIGITS): the same curves at 4 and at 5 digits.
import { SIGNIFICANT_DIGITS } from "../../../src/results/numbers.js";
import { httpEvent, lambdaContext } from "../../support/events.js";
import { makeHandler } from "../../support/handler.js";
import {
  ON_CALL_QUESTIONS,
  type OnCallQuestion,
  onCallOpenMetricsChunks,
} from "../../support/onCallDataset.js";
import { startPrometheus } from "../../support/prometheus.js";
import { realTokens } from "../../support/tokenizers.js";
import type { BenchContext, Handler } from "../context.js";
import type { Figure } from "../report.js";
import { appOfRevision } from "../revision.js";

/** Today's main before the compact form: a point per `[t, "v"]` pair. */
const BASE_REVISION = "1344602";
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
/** The target: at least this many times the points per token, by both tokenizers. */
const TARGET = 2;

interface Cut {
  text: string;
  points: number;
  curves: number;
  values: unknown[][];
}

async function ask(handler: Handler, question: OnCallQuestion): Promise<Cut | undefined> {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: question.tool, arguments: question.args },
  };
  const event = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers: HEADERS,
    body: JSON.stringify(body),
  });
  const http = (await handler(event, lambdaContext(60_000))) as { body: string };
  const { result } = JSON.parse(http.body) as {
    result: {
      content: { text: string }[];
      structuredContent: {
        truncated?: { returned: { points: number } };
        result: Array<{ values?: unknown[] }>;
      };
    };
  };
  const value = result.structuredContent;
  if (value.truncated === undefined) return undefined;
  return {
    text: result.content.map((item) => item.text).join("\n"),
    points: value.truncated.returned.points,
    curves: value.result.length,
    values: value.result.map((series) => series.values ?? []),
  };
}

interface Totals {
  points: number;
  claude: number;
  o200k: number;
}

function add(totals: Totals, cut: Cut): void {
  const tokens = realTokens(cut.text);
  totals.points += cut.points;
  totals.claude += tokens.claude;
  totals.o200k += tokens.o200k;
}

const perToken = (totals: Totals) => ({
  claude: totals.points / totals.claude,
  o200k: totals.points / totals.o200k,
});

/** A compact value at `digits` significant digits (SIGNIFICANT_DIGITS's values rounded further). */
function atDigits(value: unknown, digits: number): unknown {
  if (Array.isArray(value)) return value.map((one) => atDigits(one, digits));
  return typeof value === "number" && value !== 0 ? Number(value.toPrecision(digits)) : value;
}

/** Tokens of the curves' values at 4 and 5 digits, and how far 4 digits moves a value (relative). */
function digitsTrade(curves: unknown[][]): string {
  const five = JSON.stringify(curves);
  const four = JSON.stringify(curves.map((values) => atDigits(values, 4)));
  const t5 = realTokens(five);
  const t4 = realTokens(four);
  return (
    `curves' values at 5 digits: ${t5.claude} Claude / ${t5.o200k} o200k tokens; at 4: ${t4.claude} / ${t4.o200k} ` +
    `(${((1 - t4.claude / t5.claude) * 100).toFixed(1)} % / ${((1 - t4.o200k / t5.o200k) * 100).toFixed(1)} % fewer), ` +
    `for a rounding error of up to 0.05 % instead of 0.005 % (SIGNIFICANT_DIGITS is ${SIGNIFICANT_DIGITS})`
  );
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const prometheus = await startPrometheus({ openMetrics: onCallOpenMetricsChunks });
  try {
    const env = { PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" };
    const ours = makeHandler(env);
    const base = await appOfRevision(ctx.root, BASE_REVISION);
    const before = base.app?.createHandler(
      base.app.loadConfig({ ...env, LOG_LEVEL: "SILENT", METRICS: "off" }),
    ) as Handler | undefined;
    const now: Totals = { points: 0, claude: 0, o200k: 0 };
    const then: Totals = { points: 0, claude: 0, o200k: 0 };
    const asked: string[] = [];
    const curves: unknown[][] = [];
    for (const question of ON_CALL_QUESTIONS.filter((q) => q.tool === "ExecuteRangeQuery")) {
      const mine = await ask(ours, question);
      const theirs = before && (await ask(before, question));
      // Only questions both cut compare: the same series, the same budget.
      if (mine === undefined || (before !== undefined && theirs === undefined)) continue;
      add(now, mine);
      if (theirs !== undefined) add(then, theirs);
      curves.push(...mine.values);
      asked.push(
        `${question.id}: ${mine.points} points in ${mine.curves} curves` +
          (theirs ? ` (before: ${theirs.points} in ${theirs.curves})` : ""),
      );
    }
    const ourRate = perToken(now);
    const theirRate = before ? perToken(then) : undefined;
    const ratio = theirRate && Math.min(ourRate.claude / theirRate.claude, ourRate.o200k / theirRate.o200k);
    const rate = (r: { claude: number; o200k: number }) =>
      `${r.claude.toFixed(3)} Claude / ${r.o200k.toFixed(3)} o200k`;
    return [
      {
        id: "cut-range-points-per-token",
        title:
          "Cut range answers of the on-call questions: points per token of the whole answer's text (the lower ratio of both tokenizers)",
        unit: "points/token",
        ours: Number(Math.min(ourRate.claude, ourRate.o200k).toFixed(3)),
        ...(theirRate
          ? {
              baseline: {
                name: BASE_REVISION,
                value: Number(Math.min(theirRate.claude, theirRate.o200k).toFixed(3)),
              },
            }
          : {}),
        ...(ratio !== undefined ? { ratio } : {}),
        target: `≥ ${TARGET}× ${BASE_REVISION}'s, by both tokenizers`,
        met: ratio !== undefined && ratio >= TARGET,
        note:
          `now ${rate(ourRate)}` +
          (theirRate ? `; ${BASE_REVISION} ${rate(theirRate)}` : `; ${base.reason ?? "no baseline"}`) +
          `; ${asked.join("; ")}. ${digitsTrade(curves)}`,
      },
    ];
  } finally {
    await prometheus.close();
  }
}
