// Figure: every series in view (issue 38, item 4). The on-call dataset's fleet question (a day of memory of
// 180 pods with long labels: an image per container, an instance per node; ON_CALL_FLEET_QUESTION) asked of
// ExecuteRangeQuery at the default budget: how many series have a row in series_stats (collapsed rows and
// lookups expanded), how many curves, the fewest points a curve has (a bucket's two extremes are two), and
// the answer's tokens by both real tokenizers and characters; then the same question with `summary: true`,
// its tokens against the full answer's.
import { type SeriesTableValue, tableSeries } from "../../support/cutResults.js";
import { httpEvent, lambdaContext } from "../../support/events.js";
import { makeHandler } from "../../support/handler.js";
import {
  ON_CALL_FLEET,
  ON_CALL_FLEET_QUESTION,
  onCallFleetOpenMetricsChunks,
} from "../../support/onCallDataset.js";
import { startPrometheus } from "../../support/prometheus.js";
import { queryPoints } from "../../support/queryPoints.js";
import { realTokens } from "../../support/tokenizers.js";
import type { Handler } from "../context.js";
import type { Figure } from "../report.js";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
/** The targets on this question. */
const TARGET = { rows: ON_CALL_FLEET.pods.length, curves: 10, points: 48, tokens: 20_000 };

interface Answer {
  text: string;
  value: { result?: unknown[]; series_stats?: SeriesTableValue };
}

async function ask(handler: Handler, extra: Record<string, unknown> = {}): Promise<Answer> {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: ON_CALL_FLEET_QUESTION.tool, arguments: { ...ON_CALL_FLEET_QUESTION.args, ...extra } },
  };
  const event = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers: HEADERS,
    body: JSON.stringify(body),
  });
  const http = (await handler(event, lambdaContext(60_000))) as { body: string };
  const { result } = JSON.parse(http.body) as {
    result: { content: { text: string }[]; structuredContent: Answer["value"] };
  };
  return { text: result.content.map((item) => item.text).join("\n"), value: result.structuredContent };
}

export async function run(): Promise<Figure[]> {
  const prometheus = await startPrometheus({ openMetrics: onCallFleetOpenMetricsChunks });
  try {
    const handler = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
    const full = await ask(handler);
    const summary = await ask(handler, { summary: true });
    const rows = full.value.series_stats ? tableSeries(full.value.series_stats).length : 0;
    const curves = full.value.result === undefined ? [] : queryPoints(full.value);
    const fewest = curves.length === 0 ? 0 : Math.min(...curves.map(({ points }) => points.length));
    const tokens = realTokens(full.text);
    const summaryTokens = realTokens(summary.text);
    const summaryRows = summary.value.series_stats ? tableSeries(summary.value.series_stats).length : 0;
    const within = Math.max(tokens.claude, tokens.o200k) <= TARGET.tokens;
    const met = rows === TARGET.rows && curves.length >= TARGET.curves && fewest >= TARGET.points && within;
    const ratio = Math.max(summaryTokens.claude / tokens.claude, summaryTokens.o200k / tokens.o200k);
    const mark = (ok: boolean) => (ok ? "met" : "MISSED");
    return [
      {
        id: "series-in-view",
        title: `${ON_CALL_FLEET_QUESTION.title} (ExecuteRangeQuery, step 60 s, default budget): series with a row`,
        unit: "rows",
        ours: rows,
        target: `rows = ${TARGET.rows}, curves ≥ ${TARGET.curves}, points per curve ≥ ${TARGET.points}, ≤ ${TARGET.tokens} tokens by both tokenizers`,
        met,
        note:
          `rows ${rows} of ${TARGET.rows} (${mark(rows === TARGET.rows)}); curves ${curves.length} (${mark(curves.length >= TARGET.curves)}); ` +
          `fewest points per curve ${fewest} (${mark(fewest >= TARGET.points)}); ` +
          `${tokens.claude} Claude / ${tokens.o200k} o200k tokens (${mark(within)}), ${full.text.length} characters`,
      },
      {
        id: "summary-tokens",
        title: `${ON_CALL_FLEET_QUESTION.title}: summary: true against the full answer, tokens (the larger ratio of both tokenizers)`,
        unit: "× the full answer's tokens",
        ours: Number(ratio.toFixed(3)),
        ratio,
        target: "< 1, every series with a row",
        met: ratio < 1 && summaryRows === TARGET.rows,
        note:
          `summary ${summaryTokens.claude} Claude / ${summaryTokens.o200k} o200k tokens, ${summary.text.length} characters, ` +
          `${summaryRows} rows; full answer ${tokens.claude} / ${tokens.o200k}, ${full.text.length} characters`,
      },
    ];
  } finally {
    await prometheus.close();
  }
}
