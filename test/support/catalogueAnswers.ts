/**
 * Every tool's largest default answer on the large catalogues (test/support/largeCatalogue.ts): the calls
 * the budget test (test/integration/largeCatalogue.test.ts) and the bench figure (catalogue-answers) make,
 * through the real server at the default budget (MAX_RESULT_TOKENS' default), as a model reads them.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  ExecuteQuery,
  ExecuteRangeQuery,
  FindSeries,
  GetAlertHistory,
  GetHealthOverview,
  GetMetricMetadata,
  GetServerInfo,
  ListAlerts,
  ListLabels,
  ListLabelValues,
  ListMetrics,
  ListRules,
  ListSilences,
  PlotRangeQuery,
} from "../../tools/index.js";
import type { Tool } from "../../tools/types.js";
import { CATALOGUE, type CatalogueStack } from "./largeCatalogue.js";
import { makeToolCall, toolResult } from "./toolCall.js";

export interface CatalogueAsk {
  /** The tool and what sets this call apart, e.g. `ListLabelValues source_path`. */
  name: string;
  tool: Tool;
  args: Record<string, unknown>;
}

/** The calls: each tool with the arguments that make its answer largest on the catalogues. */
export const CATALOGUE_ASKS: readonly CatalogueAsk[] = [
  { name: "ListMetrics", tool: ListMetrics, args: {} },
  { name: "ListLabels", tool: ListLabels, args: {} },
  { name: "ListLabelValues tenant", tool: ListLabelValues, args: { label: "tenant" } },
  { name: "ListLabelValues digest", tool: ListLabelValues, args: { label: "digest" } },
  { name: "ListLabelValues source_path", tool: ListLabelValues, args: { label: "source_path" } },
  { name: "ListLabelValues owner", tool: ListLabelValues, args: { label: "owner" } },
  { name: "FindSeries", tool: FindSeries, args: { match: '{__name__=~".+"}' } },
  { name: "GetMetricMetadata", tool: GetMetricMetadata, args: {} },
  { name: "ListRules", tool: ListRules, args: {} },
  { name: "ListAlerts", tool: ListAlerts, args: {} },
  { name: "ListSilences", tool: ListSilences, args: {} },
  { name: "GetAlertHistory", tool: GetAlertHistory, args: {} },
  { name: "GetHealthOverview", tool: GetHealthOverview, args: {} },
  { name: "GetServerInfo", tool: GetServerInfo, args: {} },
  {
    name: "ExecuteQuery",
    tool: ExecuteQuery,
    args: { query: '{__name__=~".+"}', time: String(CATALOGUE.end) },
  },
  {
    name: "ExecuteRangeQuery",
    tool: ExecuteRangeQuery,
    args: {
      query: '{__name__=~".+"}',
      start: String(CATALOGUE.start),
      end: String(CATALOGUE.end),
      step: "60",
    },
  },
  {
    name: "PlotRangeQuery",
    tool: PlotRangeQuery,
    args: {
      query: '{__name__=~".+"}',
      start: String(CATALOGUE.start),
      end: String(CATALOGUE.end),
      step: "60",
    },
  },
];

export interface CatalogueAnswer {
  name: string;
  /** Every text item, joined as a model reads them. */
  text: string;
  /** Whether the answer says it was cut. */
  cut: boolean;
  result: CallToolResult;
}

/** Asks one call of CATALOGUE_ASKS against the stack, at the default budget; throws on a tool error. */
export async function askCatalogue(stack: CatalogueStack, ask: CatalogueAsk): Promise<CatalogueAnswer> {
  const call = makeToolCall(
    { prometheusUrl: stack.prometheus.url, prometheusAuth: "none", alertmanagerUrl: stack.alertmanager.url },
    { timeoutMs: 60_000 },
  );
  const result = await toolResult(ask.tool, ask.args, call);
  if (result.isError) throw new Error(`${ask.name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
  const text = result.content
    .filter((item): item is { type: "text"; text: string } => item.type === "text")
    .map((item) => item.text)
    .join("\n");
  const structured = result.structuredContent as { truncated?: unknown } | undefined;
  return { name: ask.name, text, cut: structured?.truncated !== undefined, result };
}
