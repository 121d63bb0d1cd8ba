import type * as z from "zod";
import { formatDuration } from "../../src/promql/advice.js";
import { matchesAny } from "../../src/promql/matchers.js";
import {
  type AlertHistoryEntry,
  compareHistoryEntries,
  historyEntry,
  rfc3339,
} from "../../src/results/alertHistory.js";
import { ListCollector } from "../../src/results/entryList.js";
import { readAlertHistory } from "../alertHistory.js";
import type { getAlertHistoryArguments } from "../arguments.js";
import { expectList, readClock } from "../common.js";
import { resolveTime, toUnixSeconds } from "../relativeTime.js";
import { serves, type ToolCall, ToolError } from "../types.js";
import { alertSelectors } from "./listAlerts.js";

/** The window when the call names none: the last day. */
const DEFAULT_START = "now-24h";

/** GetAlertHistory's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof getAlertHistoryArguments>, call: ToolCall) {
  const selectors = await alertSelectors(args.match ?? undefined);
  const window = historyWindow(args, call);
  const read = await readAlertHistory(args, call, { ...window, selectors });
  const fields = {
    start: rfc3339(window.start),
    end: rfc3339(window.end),
    resolution: formatDuration(read.step),
  };
  const names = new Map<string, number>();
  const collector = new ListCollector<AlertHistoryEntry>(
    {
      key: "alerts",
      noun: "alerts",
      fields,
      entriesOf: (entry) => [entry as AlertHistoryEntry],
      // Matchers PromQL could not take (a label name it does not allow) are applied here.
      accepts: (entry) => matchesAny(entry.labels, selectors),
      compare: compareHistoryEntries,
      orderWords: "most recent activity first",
      tally: (entry) => {
        const name = entry.labels.alertname ?? "";
        names.set(name, (names.get(name) ?? 0) + 1);
      },
      nextStep: () =>
        `Alertnames: ${[...names]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([name, count]) => `${name} (${count})`)
          .join(", ")}. Narrow with match or a shorter range.`,
      emptyHint: emptyHint(selectors.length > 0, call),
    },
    { budget: call.budget, limit: args.limit ?? undefined },
  );
  for (const history of read.histories.values()) {
    const entry = historyEntry(history, window.end);
    if (entry !== undefined) collector.offer(entry);
  }
  return expectList(collector.finish(undefined, read.bytes), "alert history");
}

/** The window asked for in Unix seconds, `now` read once; end before start is the caller's error. */
function historyWindow(
  args: { start?: string | null | undefined; end?: string | null | undefined },
  call: ToolCall,
): { start: number; end: number } {
  const now = readClock(call);
  const start = toUnixSeconds(resolveTime("start", args.start ?? DEFAULT_START, now));
  const end = toUnixSeconds(resolveTime("end", args.end ?? "now", now));
  if (!(end > start)) throw new ToolError("Invalid arguments: end must be after start.", "invalid_arguments");
  return { start, end };
}

function emptyHint(filtered: boolean, call: ToolCall): string {
  const next = [
    "Widen start (e.g. now-7d)",
    filtered ? "or loosen match" : "",
    serves(call, "GetHealthOverview")
      ? "; GetHealthOverview shows what is wrong now (alerts, rules that cannot fire, targets down)"
      : serves(call, "ListRules")
        ? "; ListRules shows the alerting rules and their state now"
        : "",
  ]
    .filter(Boolean)
    .join(" ");
  return `No alert was pending or firing in this range${filtered ? " matching match" : ""}, by Prometheus's stored ALERTS series. ${next}.`;
}
