import * as z from "zod";
import { MAX_THRESHOLD_LABEL_CHARS, MAX_THRESHOLDS } from "../src/charts/thresholdLimits.js";
import { WORKSPACE_ID_FORM, WORKSPACE_ID_MAX_LENGTH } from "../src/prometheus/access.js";
import { REGION_PATTERN } from "../src/prometheus/regions.js";
import type { QueryAsked } from "../src/results/queryAsked.js";
import { ORDERS, type Order } from "../src/results/ranking.js";
import { hasLoneSurrogate } from "../src/util/json.js";
import { durationMs, parseRelativeTime } from "./relativeTime.js";
import type { ToolCall } from "./types.js";

/**
 * The parameters a JSON number is accepted for (clients send Unix times, steps in seconds and limits as
 * numbers; the server reads them as their decimal text), and the number each takes, as tools/list
 * declares it beside the string forms (not under PYTHON_COMPAT, whose schemas are the Python server's).
 */
export const NUMERIC_PARAMETERS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  time: { type: "number", minimum: 0 },
  start: { type: "number", minimum: 0 },
  end: { type: "number", minimum: 0 },
  step: { type: "number", exclusiveMinimum: 0 },
  limit: { type: "integer", minimum: 1 },
};

/** Shared parameter schemas. Optional ones accept an explicit null (rendered as `anyOf: [string, null]`). */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;
const UNIX_SECONDS = /^\d+(\.\d+)?$/;

const MAX_QUERY_LENGTH = 20_000;

function isRfc3339(value: string): boolean {
  const match = RFC3339.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  const offsetOk = match[9] === undefined || (Number(match[9]) <= 23 && Number(match[10]) <= 59);
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetOk
  );
}

function isTimestamp(value: string): boolean {
  return UNIX_SECONDS.test(value) || isRfc3339(value);
}

/** Characters a time or step argument may have: far more than any real one, little enough to log and send. */
const MAX_TIME_LENGTH = 64;

/**
 * A positive Prometheus duration (`15s`, `1m`, `1h30m`, `1d`, `500ms`) or a positive, finite number of
 * seconds. (Within MAX_TIME_LENGTH characters every number is finite; the check stays for any caller.)
 */
function isStep(value: string): boolean {
  if (value.length > MAX_TIME_LENGTH) return false;
  if (UNIX_SECONDS.test(value)) {
    const seconds = Number(value);
    return Number.isFinite(seconds) && seconds > 0;
  }
  const ms = durationMs(value);
  // Too long to count in milliseconds is still a duration: such steps were always passed on.
  return ms === "too long" || (typeof ms === "number" && ms > 0);
}

/** Why `value` is not a time argument (RFC 3339, Unix seconds, `now`, `now-<duration>`), or undefined when it is one. */
function timeProblem(name: string, value: string): string | undefined {
  const relative = parseRelativeTime(name, value);
  if (relative !== undefined) return "problem" in relative ? relative.problem : undefined;
  if (isTimestamp(value)) return undefined;
  return `${name} must be an RFC 3339 timestamp (e.g. 2023-11-14T22:13:20Z), Unix seconds (e.g. 1700000000 or 1700000000.5), now, or now-<duration> (e.g. now-5m, now-1h30m, now-2d)`;
}

/**
 * The error of an argument that is missing or not text: its name and the forms it takes, in words
 * (`end is required: RFC 3339, …`), never the validator's own "expected string, received undefined".
 */
export function wrongType(name: string, forms: string): z.core.$ZodErrorMap {
  return (issue) =>
    issue.input === undefined ? `${name} is required: ${forms}` : `${name} must be ${forms}`;
}

/** The forms a time argument takes, as its description names them (a range starts before now). */
const timeForms = (name: string) =>
  name === "start"
    ? "RFC 3339 (e.g. 2023-11-14T22:13:20Z), Unix seconds, or now-<duration> (e.g. now-1h)"
    : "RFC 3339 (e.g. 2023-11-14T22:13:20Z), Unix seconds, now, or now-<duration> (e.g. now-5m)";

/** A time argument; `now` and `now-<duration>` are resolved by the tool, against one clock reading per call. */
const timestamp = (name: string) =>
  z
    .string({ error: wrongType(name, timeForms(name)) })
    .max(MAX_TIME_LENGTH, { error: `${name} is too long`, abort: true })
    .refine((value) => timeProblem(name, value) === undefined, {
      error: (issue) => timeProblem(name, String(issue.input)),
    });

export const workspaceId = z
  .string({
    error: wrongType("workspace_id", "an AMP workspace id such as ws-12345678-abcd-1234-abcd-123456789012"),
  })
  .max(WORKSPACE_ID_MAX_LENGTH, { error: "workspace_id is too long" })
  .regex(WORKSPACE_ID_FORM, {
    error:
      "workspace_id must be an AMP workspace id: ws- followed by letters, digits, - or _ (e.g. ws-12345678-abcd-1234-abcd-123456789012)",
  })
  .nullable()
  .optional()
  .describe(
    "AMP workspace id (ws-…); omit to use the configured one. GetAvailableWorkspaces lists the ones this deployment may read.",
  );

/**
 * workspace_id with BACKENDS: a backend's name, or an AMP workspace id unless the deployment reads its
 * backends only (`backendsOnly`: then the names are an enum, and nothing else is accepted).
 */
export function backendChoice(
  names: readonly [string, ...string[]],
  defaultName: string | undefined,
  backendsOnly: boolean,
) {
  const omit = defaultName === undefined ? "no default: name one" : `omit to use the default, ${defaultName}`;
  const listed = `GetAvailableWorkspaces describes them.`;
  if (backendsOnly) {
    return z
      .enum(names, { error: `workspace_id must be a backend's name: ${names.join(", ")}` })
      .nullable()
      .optional()
      .describe(`The backend to query: ${names.join(", ")} (${omit}). ${listed}`);
  }
  // Names are letters, digits, _, - and . (src/config/backends.ts): only . means more in a pattern
  // (and \- is no escape at all in the Unicode patterns JSON Schema validators use).
  const escaped = names.map((name) => name.replaceAll(".", "\\."));
  return z
    .string({ error: wrongType("workspace_id", "a backend's name or an AMP workspace id (ws-…)") })
    .max(WORKSPACE_ID_MAX_LENGTH, { error: "workspace_id is too long" })
    .regex(new RegExp(`^(?:${escaped.join("|")}|ws-[A-Za-z0-9_-]+)$`), {
      error: `workspace_id must be a backend's name (${names.join(", ")}) or an AMP workspace id (ws- followed by letters, digits, - or _)`,
    })
    .nullable()
    .optional()
    .describe(`A backend's name (${names.join(", ")}; ${omit}) or an AMP workspace id (ws-…). ${listed}`);
}

export const region = z
  .string({ error: wrongType("region", "an AWS region such as us-east-1") })
  .regex(REGION_PATTERN, { error: "region must be an AWS region such as us-east-1 or eu-west-2" })
  .nullable()
  .optional()
  .describe("AWS region, e.g. us-east-1 (default: the function's).");

export const profile = z
  .string({ error: wrongType("profile", "the name of an AWS profile") })
  .min(1, { error: "profile must not be empty" })
  .max(128, { error: "profile is too long" })
  .nullable()
  .optional()
  .describe("AWS named profile, for local runs only (in Lambda the function's role is used).");

export const query = z
  .string({ error: wrongType("query", "a PromQL expression, e.g. up or rate(http_requests_total[5m])") })
  .max(MAX_QUERY_LENGTH, { error: `query must be at most ${MAX_QUERY_LENGTH} characters` })
  .refine((value) => value.trim() !== "", { error: "query must not be empty" })
  .refine((value) => !hasLoneSurrogate(value), {
    error: "query must be valid Unicode text (it holds a lone surrogate)",
  })
  .describe("PromQL expression, e.g. sum by (job) (rate(http_requests_total[5m]))");

export const time = timestamp("time")
  .nullable()
  .optional()
  .describe(
    "Evaluation time: RFC 3339, Unix seconds, now, or now-<duration> (e.g. now-5m). Defaults to now.",
  );

export const start = timestamp("start").describe(
  "Start of the range: RFC 3339, Unix seconds, or now-<duration> (e.g. now-1h, now-1h30m, now-2d).",
);
export const end = timestamp("end").describe(
  "End of the range (inclusive): RFC 3339, Unix seconds, now, or now-<duration>. start and end share one now.",
);

const STEP_FORMS = "a positive Prometheus duration (e.g. 15s, 1m, 1h30m, 1d, 500ms) or a number of seconds";

export const step = z
  .string({ error: wrongType("step", STEP_FORMS) })
  .max(MAX_TIME_LENGTH, {
    error: `step must be at most ${MAX_TIME_LENGTH} characters: ${STEP_FORMS} (e.g. 60)`,
    abort: true,
  })
  .refine(isStep, { error: `step must be ${STEP_FORMS}` })
  .describe("Resolution step: a Prometheus duration (15s, 1m, 1h) or seconds.");

/** A positive whole number of things to return, sent as a string (or a number) like every parameter. */
export const countLimit = (what: string) =>
  z
    .string({ error: wrongType("limit", "a positive whole number, e.g. 10") })
    .regex(/^0*[1-9]\d{0,8}$/, { error: "limit must be a positive whole number, e.g. 10" })
    .transform(Number)
    .nullable()
    .optional()
    .describe(`Most ${what} to return; the size limit always applies.`);

export const seriesLimit = countLimit(
  "series (or samples) in result, in `order`, (series_stats still lists every one)",
);

export const order = z
  .enum(ORDERS as [Order, ...Order[]], { error: "order must be unusual, highest or lowest" })
  .nullable()
  .optional()
  .describe(
    "Which series come first when the answer is cut (and with limit): unusual (default; finds anomalies: furthest from the typical series, either way), highest (by peak), lowest (by dip).",
  );
export const exact = z
  .boolean()
  .nullable()
  .optional()
  .describe("true: Prometheus's own answer shape and exact value strings");

/** How a query answer is written: `legacy` under PYTHON_COMPAT, else as the call's `exact` asks. */
export function answerForm(exactAsked: boolean | null | undefined, call: ToolCall): QueryAsked["form"] {
  if (call.settings.pythonCompat) return "legacy";
  return exactAsked ? "exact" : "compact";
}
export const namesLimit = countLimit("names, first by name,");

/** A query answer as its `series_stats` table alone (ExecuteQuery, ExecuteRangeQuery). */
export const summary = z
  .boolean({ error: "summary must be true or false" })
  .nullable()
  .optional()
  .describe(
    "true: only the series_stats table (every series' statistics and change), no curves: is anything else affected?",
  );

/** A chart's title (PlotRangeQuery). */
export const chartTitle = z
  .string({ error: "title must be a string" })
  .max(200, { error: "title must be at most 200 characters" })
  .nullable()
  .optional()
  .describe("The chart's title (default: the query).");

const THRESHOLD_FORMS = `a list of at most ${MAX_THRESHOLDS} thresholds, each a number or {"value": 0.9, "label": "alert"}`;

/** A threshold's value: a finite number (JSON has no other; a wrong one gets the list's error, which names the forms). */
const thresholdValue = z.number();

const thresholdLabel = z
  .string({ error: "each threshold's label must be a string" })
  .max(MAX_THRESHOLD_LABEL_CHARS, {
    error: `each threshold's label must be at most ${MAX_THRESHOLD_LABEL_CHARS} characters`,
  })
  .refine((value) => !hasLoneSurrogate(value), {
    error: "each threshold's label must be valid Unicode text (it holds a lone surrogate)",
  })
  .nullable()
  .optional();

/**
 * Horizontal lines on a chart (PlotRangeQuery): an alert's threshold, an SLO. A bare number, or a value
 * with its label; always `{value, label?}` once parsed.
 */
export const chartThresholds = z
  .array(
    z.union(
      [
        thresholdValue,
        z.strictObject(
          { value: thresholdValue, label: thresholdLabel },
          { error: "each threshold is a number or {value, label}: no other keys" },
        ),
      ],
      {
        error: `thresholds must be ${THRESHOLD_FORMS}`,
      },
    ),
    { error: `thresholds must be ${THRESHOLD_FORMS}` },
  )
  .max(MAX_THRESHOLDS, { error: `thresholds takes at most ${MAX_THRESHOLDS} values` })
  .transform((list) =>
    list.map((item) =>
      typeof item === "number" ? { value: item } : { value: item.value, label: item.label ?? undefined },
    ),
  )
  .nullable()
  .optional()
  .describe(
    'Labelled horizontal lines, e.g. [{"value": 0.9, "label": "alert"}] or [0.9]: at most 5, values in the query\'s terms.',
  );

/** Series selectors a call may pass in one `match`. */
const MAX_SELECTORS = 20;

const SELECTOR_FORMS = 'a series selector such as up{job="api"} or {__name__=~"http_.*"}, or a list of them';

const selector = z
  .string({ error: wrongType("match", SELECTOR_FORMS) })
  .max(MAX_QUERY_LENGTH, { error: `each match must be at most ${MAX_QUERY_LENGTH} characters` })
  .refine((value) => value.trim() !== "", { error: "match must not be empty" })
  .refine((value) => !hasLoneSurrogate(value), {
    error: "match must be valid Unicode text (it holds a lone surrogate)",
  });

/** A list of selectors within the count a call may pass. */
const fewSelectors = (list: readonly string[]) => list.length <= MAX_SELECTORS;
const TOO_MANY = { error: `match takes at most ${MAX_SELECTORS} selectors` };
const SELECTORS = z.array(selector).min(1, { error: "match must name at least one selector" });
const MATCH_DESCRIPTION =
  'Series selector(s), e.g. {__name__=~"http_.*"} or up{job="api"}; a list matches any of them.';

/**
 * Series selectors sent to Prometheus as `match[]` (its own errors come back as they are): one selector
 * or a list, always a list once parsed. One flat `anyOf` in JSON Schema, which every client reads.
 */
export const match = z
  .union([selector, SELECTORS], { error: wrongType("match", SELECTOR_FORMS) })
  .transform((value) => [value].flat())
  .refine(fewSelectors, TOO_MANY)
  .describe(MATCH_DESCRIPTION);

/** `match`, optional (null or absent: no selector). */
export const optionalMatch = z
  .union([selector, SELECTORS, z.null()], { error: wrongType("match", SELECTOR_FORMS) })
  .optional()
  .transform((value) => (value == null ? undefined : [value].flat()))
  .refine((list) => list === undefined || fewSelectors(list), TOO_MANY)
  .describe(MATCH_DESCRIPTION);

/** Time bounds of a metadata lookup (labels, values, series): optional, like Prometheus's own. */
export const lookupStart = timestamp("start")
  .nullable()
  .optional()
  .describe(
    "Only series with samples after this: RFC 3339, Unix seconds, or now-<duration> (e.g. now-1h). Default: all stored data.",
  );
export const lookupEnd = timestamp("end")
  .nullable()
  .optional()
  .describe(
    "Only series with samples before this: RFC 3339, Unix seconds, now, or now-<duration>. Default: now.",
  );

/** A label name as Prometheus's classic grammar allows it (it goes into the URL path). */
export const labelName = z
  .string({ error: wrongType("label", "a label name such as job, instance or __name__") })
  .regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,1023}$/, {
    error:
      "label must be a label name: a letter or _, then letters, digits or _ (e.g. job, __name__, status_code)",
  })
  .describe("Label name, e.g. job, instance, code (__name__ for metric names).");
