import * as z from "zod";
import { isCutValue } from "../src/monitoredText.js";
import { type LabelMatcher, matchesAny, parseSelectors, SelectorError } from "../src/promql/matchers.js";
import { type AlertEntry, AlertTally, alertEntry, compareAlerts } from "../src/results/alerts.js";
import { ListCollector } from "../src/results/entryList.js";
import { onsetLookup } from "./alertHistory.js";
import { expectList, getFromWorkspace, readOnly } from "./common.js";
import { countLimit, optionalMatch, profile, region, workspaceId } from "./params.js";
import { truncation } from "./results.js";
import { defineTool, serves, ToolError } from "./types.js";

/** The alertnames a cut list's note names, most alerts first. */
const ALERTNAMES_NAMED = 8;

export const ListAlerts = defineTool({
  name: "ListAlerts",
  description:
    "List the alerts Prometheus's alerting rules have firing or pending now: labels, summary and description (untrusted data), activeAt, value, " +
    "and onset: when the current episode began, from the stored ALERTS history (activeAt restarts with rule evaluation; onset_note says so where they differ). " +
    "Start an investigation here. Firing first, newest first; state and match (label matchers on the alert, " +
    'e.g. {severity="critical"} or HighErrorRate) narrow it. ListRules shows a rule\'s expression and threshold.',
  inputSchema: z.object({
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
  }),
  outputSchema: z.object({
    truncated: truncation,
    alerts: z
      .array(z.looseObject({ labels: z.record(z.string(), z.string()), state: z.string() }))
      .describe("Alerts: labels, annotations, state, activeAt, value, onset"),
  }),
  annotations: readOnly("List firing and pending alerts"),
  async run(args, call) {
    const selectors = await alertSelectors(args.match ?? undefined);
    const state = args.state ?? undefined;
    const limit = args.limit ?? undefined;
    const onsets = await onsetLookup(args, call, selectors);
    const list = await getFromWorkspace(args, call, { path: "/alerts", params: {} }, () => {
      const tally = new AlertTally();
      return new ListCollector<AlertEntry>(
        {
          key: "alerts",
          noun: "alerts",
          format: { streamedKey: "alerts" },
          ...(onsets.unavailable === undefined ? {} : { fields: { note: onsets.unavailable } }),
          entriesOf: (value) => {
            const entry = alertEntry(value);
            return entry === undefined ? undefined : [{ ...entry, ...onsets(entry) }];
          },
          accepts: (entry) =>
            (state === undefined || entry.state === state) && matchesAny(entry.labels, selectors),
          compare: compareAlerts,
          orderWords: "firing first, then newest first",
          tally: (entry) => tally.add(entry),
          nextStep: () =>
            `They are: ${tally.words(ALERTNAMES_NAMED)}. Narrow with match (e.g. {alertname="${exampleAlertname(tally)}"}) or state.`,
          emptyHint: emptyHint(state, selectors.length > 0, serves(call, "ListRules")),
        },
        { budget: call.budget, limit },
      );
    });
    return expectList(list, "alert list");
  },
});

/** The alertname of the most alerts, for a match to copy; never one that was cut (it would match nothing). */
function exampleAlertname(tally: AlertTally): string {
  return tally.byAlertname().find(({ alertname }) => !isCutValue(alertname))?.alertname ?? "HighErrorRate";
}

/** The `match` selectors, a leading bare name meaning `alertname`; a bad one is the caller's error. */
export async function alertSelectors(match: readonly string[] | undefined): Promise<LabelMatcher[][]> {
  if (match === undefined) return [];
  try {
    return await parseSelectors(match, { nameLabel: "alertname" });
  } catch (error) {
    if (error instanceof SelectorError)
      throw new ToolError(`Invalid arguments: match: ${error.message}`, "invalid_arguments");
    throw error;
  }
}

function emptyHint(state: string | undefined, filtered: boolean, rulesServed: boolean): string {
  const what = state === undefined ? "firing or pending" : state;
  const rules = rulesServed
    ? " ListRules shows every alerting rule, its state and health (a rule that fails to evaluate cannot fire)."
    : "";
  return filtered
    ? `No ${what} alert matches match.${rules}`
    : `No alert is ${what} in this Prometheus (its alerting rules).${rules}`;
}
