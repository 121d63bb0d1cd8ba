import * as z from "zod";
import { isCutValue } from "../src/monitoredText.js";
import { type LabelMatcher, matchesAny, parseSelectors, SelectorError } from "../src/promql/matchers.js";
import {
  type AlertmanagerStatus,
  type AlertmanagerView,
  AmAlertIndex,
} from "../src/results/alertmanagerStatus.js";
import { type AlertEntry, AlertTally, alertEntry, compareAlerts } from "../src/results/alerts.js";
import { ListCollector } from "../src/results/entryList.js";
import { formatCount } from "../src/results/fit.js";
import { withNote } from "../src/results/note.js";
import { type AlertOnset, onsetLookup } from "./alertHistory.js";
import { readAlertmanager } from "./alertmanagerView.js";
import { expectList, getFromWorkspace, readOnly } from "./common.js";
import { countLimit, optionalMatch, profile, region, workspaceId } from "./params.js";
import { truncation } from "./results.js";
import { defineTool, serves, type ToolCall, ToolError } from "./types.js";

/** The alertnames a cut list's note names, most alerts first. */
const ALERTNAMES_NAMED = 8;

export const ListAlerts = defineTool({
  name: "ListAlerts",
  description:
    "List the alerts Prometheus's alerting rules have firing or pending now: labels, summary and description (untrusted data), activeAt, value, " +
    "onset (when the current episode began, from the stored ALERTS history: activeAt restarts with rule evaluation), and Alertmanager's status: silenced by whom and why, or inhibited. " +
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
  outputSchema: () =>
    z.object({
      truncated: truncation,
      note: z
        .string()
        .optional()
        .describe(
          "Only when some firing alerts are silenced or inhibited, or Alertmanager or the stored alert history could not be read",
        ),
      alerts: z
        .array(z.looseObject({ labels: z.record(z.string(), z.string()), state: z.string() }))
        .describe(
          "Alerts: labels, annotations, state, activeAt, value, onset; firing ones with alertmanager (active, silenced, inhibited or not received), silenced_by, inhibited_by",
        ),
    }),
  annotations: readOnly("List firing and pending alerts"),
  async run(args, call) {
    const selectors = await alertSelectors(args.match ?? undefined);
    const state = args.state ?? undefined;
    const limit = args.limit ?? undefined;
    // Both read before the alerts stream in, so that each entry is completed as it is read.
    const [view, onsets] = await Promise.all([
      readAlertmanager(args, call),
      onsetLookup(args, call, selectors),
    ]);
    const index = view.available ? new AmAlertIndex(view) : undefined;
    // Made with each sink: a retry reads the answer from the start.
    let firing = new FiringTally();
    const list = await getFromWorkspace(args, call, { path: "/alerts", params: {} }, () => {
      const tally = new AlertTally();
      const seen = new FiringTally();
      firing = seen;
      return new ListCollector<ListedAlert>(
        {
          key: "alerts",
          noun: "alerts",
          format: { streamedKey: "alerts" },
          entriesOf: (value) => {
            const entry = alertEntry(value);
            if (entry === undefined) return undefined;
            const status = index?.statusOf(entry);
            seen.add(entry, status);
            return [{ ...entry, ...onsets(entry), ...status }];
          },
          accepts: (entry) =>
            (state === undefined || entry.state === state) && matchesAny(entry.labels, selectors),
          compare: compareAlerts,
          orderWords: "firing first, then newest first",
          tally: (entry) => tally.add(entry),
          nextStep: () =>
            `They are: ${tally.words(ALERTNAMES_NAMED)}. Narrow with match (e.g. {alertname="${exampleAlertname(tally)}"}) or state.`,
          emptyHint: emptyHint(state, selectors.length > 0, call),
        },
        { budget: call.budget, limit },
      );
    });
    const notes = [
      onsets.unavailable,
      alertmanagerNote(view, firing, state !== undefined || selectors.length > 0),
    ].filter((note) => note !== undefined);
    return withNote(expectList(list, "alert list"), notes.length === 0 ? undefined : notes.join(" "));
  },
});

/** An alert as listed: Prometheus's, and Alertmanager's status when it is firing. */
type ListedAlert = AlertEntry & Partial<AlertOnset> & Partial<AlertmanagerStatus>;

/** Every firing alert Prometheus answered (whatever state and match keep), and what Alertmanager does with them. */
class FiringTally {
  firing = 0;
  silenced = 0;
  inhibited = 0;

  add(entry: AlertEntry, status: AlertmanagerStatus | undefined): void {
    if (entry.state !== "firing") return;
    this.firing++;
    if (status?.alertmanager === "silenced") this.silenced++;
    else if (status?.alertmanager === "inhibited") this.inhibited++;
  }
}

/**
 * The note on Alertmanager's side of the alerts: how many of all the firing ones it silences or inhibits
 * (the entries say which), or why their status is unknown; nothing when no alert fires or none is muted.
 * `filtered`: state or match kept some alerts out of the list, not out of the count.
 */
function alertmanagerNote(view: AlertmanagerView, tally: FiringTally, filtered: boolean): string | undefined {
  if (tally.firing === 0) return undefined;
  if (!view.available)
    return `Alertmanager's status of the firing alerts is unknown: ${view.reason.replace(/\.$/, "")}.`;
  const muted = [
    ...(tally.silenced > 0 ? [`silences ${formatCount(tally.silenced)}`] : []),
    ...(tally.inhibited > 0 ? [`inhibits ${formatCount(tally.inhibited)}`] : []),
  ];
  if (muted.length === 0) return undefined;
  const all = `${formatCount(tally.firing)} firing alert${tally.firing === 1 ? "" : "s"}`;
  const counted = filtered ? " (counted whatever state and match)" : "";
  return `Alertmanager ${muted.join(" and ")} of the ${all}${counted}: those notify no one; silenced_by and inhibited_by say why.`;
}

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

function emptyHint(state: string | undefined, filtered: boolean, call: ToolCall): string {
  const what = state === undefined ? "firing or pending" : state;
  // Nothing firing is not nothing wrong: an alert may be unable to fire.
  const rules = serves(call, "GetHealthOverview")
    ? " GetHealthOverview shows what else is wrong: rules that fail or cannot fire, targets down, silences."
    : serves(call, "ListRules")
      ? " ListRules shows every alerting rule, its state and health (a rule that fails to evaluate cannot fire)."
      : "";
  return filtered
    ? `No ${what} alert matches match.${rules}`
    : `No alert is ${what} in this Prometheus (its alerting rules).${rules}`;
}
