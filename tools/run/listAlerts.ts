import type * as z from "zod";
import { isCutValue } from "../../src/monitoredText.js";
import { type LabelMatcher, matchesAny, parseSelectors, SelectorError } from "../../src/promql/matchers.js";
import {
  type AlertmanagerStatus,
  type AlertmanagerView,
  AmAlertIndex,
} from "../../src/results/alertmanagerStatus.js";
import { type AlertEntry, AlertTally, alertEntry, compareAlerts } from "../../src/results/alerts.js";
import { ListCollector } from "../../src/results/entryList.js";
import { formatCount } from "../../src/results/fit.js";
import { withNote } from "../../src/results/note.js";
import { type AlertOnset, onsetLookup } from "../alertHistory.js";
import { readAlertmanager } from "../alertmanagerView.js";
import type { listAlertsArguments } from "../arguments.js";
import { expectList, getFromWorkspace } from "../common.js";
import { serves, type ToolCall, ToolError } from "../types.js";

/** The alertnames a cut list's note names, most alerts first. */
const ALERTNAMES_NAMED = 8;

/** ListAlerts's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof listAlertsArguments>, call: ToolCall) {
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
}

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
