import { ToolError } from "../src/errors.js";
import type { AnswerSink } from "../src/prometheus/answerReader.js";
import type { BackendKind } from "../src/prometheus/backends.js";
import { type AlertEntry, alertEntry, compareAlerts } from "../src/results/alerts.js";
import { type DataRange, oldestSample, runtimeFacts } from "../src/results/dataRange.js";
import { compareTargets, readTarget, type TargetNotUp } from "../src/results/targets.js";
import { parseJsonBytes } from "../src/util/json.js";
import { cutText } from "../src/util/text.js";
import { getFromWorkspace, usableProfile, type WorkspaceArgs } from "./common.js";
import type { ToolCall } from "./types.js";

/**
 * The reads of GetHealthOverview besides Alertmanager's (alertmanagerView.ts), the history's
 * (alertHistory.ts) and the rules' (ruleReads.ts): the alerts, the scrape targets and the data's time
 * range. Each says what it could not see instead of failing the overview.
 */

/** A part of the overview, or why it is missing (in words, for the model). */
export type Seen<T> = { seen: true; value: T } | { seen: false; reason: string };

/** A failure's words, at most: the overview shows several. */
const MAX_REASON_CHARS = 300;

/** What an overview part's failure says: a tool error's own words (written for the caller), cut. */
export function unseen(error: unknown, call: ToolCall): { seen: false; reason: string } {
  if (!(error instanceof ToolError) || error.kind === "cancelled" || call.context.signal?.aborted)
    throw error;
  return { seen: false, reason: cutText(error.message, MAX_REASON_CHARS) };
}

/** The kind of server the arguments name (amp, prometheus, mimir…): what it has APIs for. */
export async function backendKind(args: WorkspaceArgs, call: ToolCall): Promise<BackendKind> {
  const target = await call.upstream.workspaces.resolve(
    { workspaceId: args.workspace_id, region: args.region, profile: usableProfile(args.profile, call) },
    call.context,
  );
  return target.kind;
}

/** Alerts the overview reads at most: past this many, the rest are counted, not grouped. */
export const MAX_ALERTS_READ = 5_000;

/** Every firing and pending alert (the first MAX_ALERTS_READ in ListAlerts' order), and how many there were. */
export async function readAlerts(
  args: WorkspaceArgs,
  call: ToolCall,
): Promise<{ kept: AlertEntry[]; total: number }> {
  return getFromWorkspace(args, call, { path: "/alerts", params: {} }, () =>
    keptSink<AlertEntry>("alerts", alertEntry, compareAlerts, MAX_ALERTS_READ),
  );
}

/** Kinds of server with no scrape-targets API: they receive samples by remote write, scrape nothing. */
const NO_TARGETS_API: Partial<Record<BackendKind, string>> = {
  amp: "Amazon Managed Prometheus has no targets API (its collectors or agents scrape)",
  mimir: "Mimir has no targets API (its agents scrape)",
  cortex: "Cortex has no targets API (its agents scrape)",
};

/** Targets not up the overview lists at most (more are counted). */
export const MAX_TARGETS_READ = 1_000;

/** The scrape targets not up, and how many targets there are; or why they cannot be seen. */
export async function readTargets(
  args: WorkspaceArgs,
  call: ToolCall,
  kind: BackendKind,
): Promise<Seen<{ notUp: TargetNotUp[]; notUpTotal: number; total: number }>> {
  const none = NO_TARGETS_API[kind];
  if (none !== undefined) return { seen: false, reason: none };
  try {
    const value = await getFromWorkspace(args, call, { path: "/targets", params: { state: "active" } }, () =>
      targetsSink(),
    );
    return { seen: true, value };
  } catch (error) {
    return unseen(error, call);
  }
}

function targetsSink(): AnswerSink<{ notUp: TargetNotUp[]; notUpTotal: number; total: number }> {
  let total = 0;
  const notUp = keptSink<TargetNotUp>(
    "activeTargets",
    (raw) => {
      const reading = readTarget(raw);
      total += reading === undefined ? 0 : 1;
      return reading !== undefined && "entry" in reading ? reading.entry : undefined;
    },
    compareTargets,
    MAX_TARGETS_READ,
  );
  return {
    format: notUp.format,
    element: (raw) => notUp.element(raw),
    finish: (data, bytes) => {
      const { kept, total: notUpTotal } = notUp.finish(data, bytes);
      return { notUp: kept, notUpTotal, total };
    },
  };
}

/** The gauge Prometheus keeps of its oldest sample (blocks included), when it scrapes itself. */
const OLDEST_SAMPLE_QUERY = "min(prometheus_tsdb_lowest_timestamp_seconds)";

/**
 * How far back the data goes where the server tells it: retention and start time (runtimeinfo), the
 * oldest sample (its own gauge, when it scrapes itself). Not served by AMP, Mimir or Cortex.
 */
export async function readDataRange(
  args: WorkspaceArgs,
  call: ToolCall,
  kind: BackendKind,
): Promise<Seen<DataRange>> {
  if (kind === "amp")
    return {
      seen: false,
      reason:
        "Amazon Managed Prometheus does not report it (it keeps 150 days unless the workspace's retention is set otherwise)",
    };
  if (kind === "mimir" || kind === "cortex")
    return { seen: false, reason: `${kind === "mimir" ? "Mimir" : "Cortex"} does not report it` };
  const [runtime, oldest] = await Promise.all([
    getFromWorkspace(args, call, { path: "/status/runtimeinfo", params: {} }, () => wholeData(runtimeFacts))
      .then((value) => ({ seen: true as const, value }))
      .catch((error: unknown) => unseen(error, call)),
    getFromWorkspace(args, call, { path: "/query", params: { query: OLDEST_SAMPLE_QUERY } }, () =>
      firstValueSink(),
    ).catch((error: unknown) => {
      unseen(error, call);
      return undefined;
    }),
  ]);
  const oldestAt = oldestSample(oldest);
  const facts: DataRange = {
    ...(runtime.seen ? runtime.value : {}),
    ...(oldestAt === undefined ? {} : { oldest_sample: oldestAt }),
  };
  if (Object.keys(facts).length > 0) return { seen: true, value: facts };
  return runtime.seen ? { seen: false, reason: "the server reports no retention nor start time" } : runtime;
}

/** A sink for an answer held whole (`data` is an object, nothing streamed), made into a value by `read`. */
function wholeData<T>(read: (data: unknown) => T): AnswerSink<T> {
  return { format: { streamedKey: "" }, element: () => undefined, finish: (data) => read(data) };
}

/** The first sample's value of an instant query's vector (or scalar), as a number. */
function firstValueSink(): AnswerSink<number | undefined> {
  let value: number | undefined;
  const numberOf = (pair: unknown) =>
    Array.isArray(pair) && typeof pair[1] === "string" ? Number(pair[1]) : undefined;
  return {
    element(raw) {
      const sample = parseJsonBytes(raw) as { value?: unknown } | null;
      value ??= numberOf(sample?.value);
    },
    finish(data) {
      const { resultType, result } = (data ?? {}) as { resultType?: unknown; result?: unknown };
      return resultType === "scalar" ? numberOf(result) : value;
    },
  };
}

/**
 * Keeps the first `max` entries in `compare`'s order of the streamed array `key`, counting them all.
 * Elements `read` makes nothing of are skipped (not of interest, or not of the shape).
 */
function keptSink<T>(
  key: string,
  read: (raw: unknown) => T | undefined,
  compare: (a: T, b: T) => number,
  max: number,
): AnswerSink<{ kept: T[]; total: number }> & { format: { streamedKey: string } } {
  let kept: T[] = [];
  let total = 0;
  return {
    format: { streamedKey: key },
    element(raw) {
      const entry = read(parseJsonBytes(raw));
      if (entry === undefined) return;
      total++;
      kept.push(entry);
      // Sorted and cut in batches: memory holds at most twice `max` entries.
      if (kept.length >= 2 * max) kept = kept.sort(compare).slice(0, max);
    },
    finish: () => ({ kept: kept.sort(compare).slice(0, max), total }),
  };
}
