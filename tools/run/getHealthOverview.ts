import type * as z from "zod";
import {
  type AlertmanagerView,
  AmAlertIndex,
  type AmSilence,
  silencesMatchingNoAlert,
} from "../../src/results/alertmanagerStatus.js";
import type { AlertEntry } from "../../src/results/alerts.js";
import { type IdleSilence, type OverviewAlert, overviewResult } from "../../src/results/overview.js";
import { type RuleFindings, ruleFindings } from "../../src/results/ruleFindings.js";
import { matcherText } from "../../src/results/silences.js";
import { alertOnsets } from "../alertHistory.js";
import { readAlertmanager } from "../alertmanagerView.js";
import type { getHealthOverviewArguments } from "../arguments.js";
import { readClock } from "../common.js";
import { backendKind, readAlerts, readDataRange, readTargets, type Seen, unseen } from "../overviewReads.js";
import { rulesWithDependencies } from "../ruleDependencies.js";
import type { ToolCall } from "../types.js";

/** GetHealthOverview's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof getHealthOverviewArguments>, call: ToolCall) {
  const at = new Date(readClock(call)).toISOString();
  // Resolves the workspace first: a workspace the caller may not read fails here, once, plainly.
  const kind = await backendKind(args, call);
  const [alerts, view, rules, targets, data] = await Promise.all([
    readAlerts(args, call),
    readAlertmanager(args, call),
    readRules(args, call),
    readTargets(args, call, kind),
    readDataRange(args, call, kind),
  ]);
  const onsets = await alertOnsets(args, call, alerts.kept);
  const notSeen: Record<string, string> = {};
  if (!view.available) notSeen.alertmanager = view.reason;
  if (onsets.unavailable !== undefined) notSeen.onsets = onsets.unavailable;
  if (!rules.seen) notSeen.rules = rules.reason;
  else if (rules.value.note !== undefined) notSeen.rule_series = rules.value.note;
  if (!targets.seen) notSeen.targets = targets.reason;
  if (!data.seen) notSeen.data = data.reason;
  return overviewResult({
    at,
    alerts: joined(alerts.kept, onsets.onsets, view),
    alertsTotal: alerts.total,
    ...(view.available
      ? { activeSilences: view.silences.filter((silence) => silence.state === "active").length }
      : {}),
    idleSilences: view.available ? silencesMatchingNoAlert(view.silences, view.alerts).map(idle) : [],
    failing: rules.seen ? rules.value.findings.failing : [],
    cannotFire: rules.seen ? rules.value.findings.cannot_fire : [],
    ...(targets.seen ? { targets: targets.value } : {}),
    ...(data.seen ? { data: data.value } : {}),
    notSeen,
  });
}

/** The rules' findings (ListRules' own analysis), and the note of a series lookup that failed. */
async function readRules(
  args: Parameters<typeof rulesWithDependencies>[0],
  call: ToolCall,
): Promise<Seen<{ findings: RuleFindings; note?: string }>> {
  try {
    const read = await rulesWithDependencies(args, call);
    return {
      seen: true,
      value: { findings: ruleFindings(read.rules), ...(read.note !== undefined ? { note: read.note } : {}) },
    };
  } catch (error) {
    return unseen(error, call);
  }
}

/** Each alert with its onset and Alertmanager's status. */
function joined(
  alerts: readonly AlertEntry[],
  onsets: ReadonlyArray<{ onset: string } | undefined>,
  view: AlertmanagerView,
): OverviewAlert[] {
  const index = view.available ? new AmAlertIndex(view) : undefined;
  return alerts.map((alert, i) => {
    const status = index?.statusOf(alert);
    const onset = onsets[i]?.onset;
    return {
      ...alert,
      ...(onset !== undefined ? { onset } : {}),
      ...(status !== undefined ? { status } : {}),
    };
  });
}

function idle(silence: AmSilence): IdleSilence {
  return {
    id: silence.id,
    matchers: silence.matchers.map((matcher) => matcherText(matcher) ?? ""),
    ...(silence.createdBy !== "" ? { created_by: silence.createdBy } : {}),
    ...(silence.comment !== "" ? { comment: silence.comment } : {}),
    ...(silence.endsAt !== "" ? { ends_at: silence.endsAt } : {}),
  };
}
