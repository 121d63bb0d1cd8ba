// Each tool's input schema: its definition (tools/<tool>.ts) offers it, its body (tools/run/<tool>.ts) reads
// the arguments' type from it. Here rather than in the definition, so a body need not import its definition,
// which imports the body (an import cycle).

import * as z from "zod";
import {
  chartThresholds,
  chartTitle,
  countLimit,
  end,
  exact,
  labelName,
  lookupEnd,
  lookupStart,
  match,
  namesLimit,
  optionalMatch,
  order,
  profile,
  query,
  region,
  seriesLimit,
  start,
  step,
  summary,
  time,
  workspaceId,
  wrongType,
} from "./params.js";

/** ExecuteRangeQuery's arguments, which PlotRangeQuery takes too. */
export const rangeArguments = z.object({
  workspace_id: workspaceId,
  query,
  start,
  end,
  step,
  region,
  profile,
  limit: seriesLimit,
  order,
  exact,
});

export const executeQueryArguments = z.object({
  workspace_id: workspaceId,
  query,
  time,
  region,
  profile,
  limit: seriesLimit,
  order,
  exact,
  summary,
});

export const executeRangeQueryArguments = rangeArguments.extend({ summary });

export const findSeriesArguments = z.object({
  workspace_id: workspaceId,
  match,
  start: lookupStart,
  end: lookupEnd,
  limit: countLimit("series, first by name and labels,"),
  region,
  profile,
});

export const getAlertHistoryArguments = z.object({
  workspace_id: workspaceId,
  start: start
    .nullable()
    .optional()
    .describe(
      "Start of the range: RFC 3339, Unix seconds, or now-<duration> (e.g. now-7d). Default: now-24h.",
    ),
  end: end
    .nullable()
    .optional()
    .describe("End of the range: RFC 3339, Unix seconds, now, or now-<duration>. Default: now."),
  match: optionalMatch.describe(
    'Label matchers on the alert, e.g. {alertname="HighErrorRate"}, HighErrorRate{severity="page"} or {namespace=~"prod-.*"}; a list matches any.',
  ),
  limit: countLimit("alerts, most recent activity first,"),
  region,
  profile,
});

export const getAvailableWorkspacesArguments = z.object({ region, profile });

export const getHealthOverviewArguments = z.object({ workspace_id: workspaceId, region, profile });

export const getMetricMetadataArguments = z.object({
  workspace_id: workspaceId,
  metric: z
    .string({ error: wrongType("metric", "a metric name such as http_requests_total") })
    .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]{0,1023}$/, {
      error: "metric must be a metric name: letters, digits, _ or :, not starting with a digit",
    })
    .nullable()
    .optional()
    .describe("Metric name, e.g. http_requests_total. Omit to list every metric's metadata."),
  limit: countLimit("metrics, first by name,"),
  region,
  profile,
});

export const getServerInfoArguments = z.object({ workspace_id: workspaceId, region, profile });

export const listAlertsArguments = z.object({
  workspace_id: workspaceId,
  state: z
    .enum(["firing", "pending"], { error: "state must be firing or pending" })
    .nullable()
    .optional()
    .describe("Only alerts in this state. Default: both."),
  match: optionalMatch.describe(
    'Label matchers on the alert, e.g. {alertname="HighErrorRate"}, HighErrorRate{severity="page"} or {namespace=~"prod-.*"}; a list matches any.',
  ),
  limit: countLimit("alerts, firing and newest first,"),
  region,
  profile,
});

export const listLabelValuesArguments = z.object({
  workspace_id: workspaceId,
  label: labelName,
  match: optionalMatch,
  start: lookupStart,
  end: lookupEnd,
  limit: countLimit("values, first by value,"),
  region,
  profile,
});

export const listLabelsArguments = z.object({
  workspace_id: workspaceId,
  match: optionalMatch,
  start: lookupStart,
  end: lookupEnd,
  limit: countLimit("label names, first by name,"),
  region,
  profile,
});

export const listMetricsArguments = z.object({
  workspace_id: workspaceId,
  region,
  profile,
  limit: namesLimit,
  match: optionalMatch,
});

/** One exact name or several; flat `anyOf` in JSON Schema, as `match`. */
const names = (what: string) => {
  const forms = `a ${what} name, or a list of them`;
  const name = z.string({ error: wrongType(what, forms) }).min(1, { error: `${what} must not be empty` });
  return z
    .union([name, z.array(name).min(1, { error: `${what} must name at least one` }), z.null()], {
      error: wrongType(what, forms),
    })
    .optional()
    .transform((value) => (value == null ? undefined : [value].flat()));
};

export const listRulesArguments = z.object({
  workspace_id: workspaceId,
  type: z
    .enum(["alert", "record"], { error: "type must be alert or record" })
    .nullable()
    .optional()
    .describe("Only alerting (alert) or recording (record) rules. Default: both."),
  health: z
    .enum(["ok", "err", "unknown"], { error: "health must be ok, err or unknown" })
    .nullable()
    .optional()
    .describe("Only rules of this health (err: evaluation fails; unknown: not evaluated yet). Default: all."),
  name: names("name").describe("Rule name(s), exactly, e.g. HighErrorRate or job:up:sum."),
  group: names("group").describe("Rule group name(s), exactly."),
  limit: countLimit("rules, by group then name,"),
  region,
  profile,
});

export const listSilencesArguments = z.object({
  workspace_id: workspaceId,
  state: z
    .enum(["active", "pending", "expired"], { error: "state must be active, pending or expired" })
    .nullable()
    .optional()
    .describe("Only silences in this state. Default: all (expired ones are kept for a few days)."),
  match: optionalMatch.describe(
    'Alertmanager matchers on the silences\' own matchers: alertname="HighErrorRate" keeps silences with an alertname matcher of that value; several must all hold.',
  ),
  limit: countLimit("silences, active first,"),
  region,
  profile,
});

export const plotRangeQueryArguments = rangeArguments.extend({
  title: chartTitle,
  thresholds: chartThresholds,
});
