import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./net.js";
import {
  onPath,
  type RunningPrometheus,
  type StartPrometheusOptions,
  startPrometheus,
  stop,
  waitReady,
} from "./prometheus.js";

/** Debian names the binary `prometheus-alertmanager`; upstream tarballs and other distributions `alertmanager`. */
const ALERTMANAGER_BINARIES = ["prometheus-alertmanager", "alertmanager"] as const;

function alertmanagerBinary(): string | undefined {
  return ALERTMANAGER_BINARIES.find(onPath);
}

/**
 * True when an Alertmanager binary is on PATH. When none is: throws under CI (CI must never skip), otherwise
 * prints a loud warning and returns false, for `describe.skipIf(!alertmanagerAvailable())`.
 */
export function alertmanagerAvailable(): boolean {
  if (alertmanagerBinary() !== undefined) return true;
  const text = `${ALERTMANAGER_BINARIES.join(" or ")} not found on PATH (Debian/Ubuntu: apt-get install prometheus-alertmanager)`;
  if (process.env.CI) throw new Error(`CI must not skip the Alertmanager integration tests: ${text}`);
  const bar = "!".repeat(78);
  console.warn(`\n${bar}\n!! SKIPPING Alertmanager integration tests: ${text}\n${bar}\n`);
  return false;
}

/** An alerting rule as written to the rules file, with the state it settles in once the stack is up. */
export interface AlertingRuleSpec {
  readonly type: "alerting";
  readonly name: string;
  /** In Prometheus's own formatting, so it equals the `query` /api/v1/rules reports. */
  readonly expr: string;
  /** The rule's `for` as written (`"2s"`), or undefined when it has none. */
  readonly for: string | undefined;
  /** The same in seconds, as /api/v1/rules reports it (`duration`). */
  readonly forSeconds: number;
  readonly labels: Readonly<Record<string, string>>;
  /** Templates as written; /api/v1/alerts reports them expanded. */
  readonly annotations: Readonly<Record<string, string>>;
  /** The rule's state (/api/v1/rules `state`) once startAlertingStack has resolved. */
  readonly state: "firing" | "pending" | "inactive";
}

/** A recording rule as written to the rules file, with its health once the stack is up. */
export interface RecordingRuleSpec {
  readonly type: "recording";
  readonly name: string;
  readonly expr: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly health: "ok" | "err";
  /** The `lastError` Prometheus reports for it (only for health "err"). */
  readonly lastError: string | undefined;
  /** Whether what it records has series once the stack is up. */
  readonly hasSeries: boolean;
}

export type RuleSpec = AlertingRuleSpec | RecordingRuleSpec;

const TARGET_UP: AlertingRuleSpec = {
  type: "alerting",
  name: "TargetUp",
  expr: "up == 1",
  for: undefined,
  forSeconds: 0,
  labels: { severity: "info" },
  annotations: {
    summary: "Target {{ $labels.instance }} is up",
    description: "up is {{ $value }} for job {{ $labels.job }}.",
  },
  state: "firing",
};

const UP_FOR_TWO_SECONDS: AlertingRuleSpec = {
  type: "alerting",
  name: "UpForTwoSeconds",
  expr: "up == 1",
  for: "2s",
  forSeconds: 2,
  labels: { severity: "warning" },
  annotations: { summary: "Target {{ $labels.instance }} has been up for 2 seconds" },
  state: "firing",
};

const UP_FOR_AN_HOUR: AlertingRuleSpec = {
  type: "alerting",
  name: "UpForAnHour",
  expr: "up == 1",
  for: "1h",
  forSeconds: 3600,
  labels: { severity: "page" },
  annotations: { summary: "Target {{ $labels.instance }} has been up for an hour" },
  state: "pending",
};

const TARGET_DOWN: AlertingRuleSpec = {
  type: "alerting",
  name: "TargetDown",
  expr: "up == 0",
  for: "1m",
  forSeconds: 60,
  labels: { severity: "critical" },
  annotations: {
    summary: "Target {{ $labels.instance }} is down",
    runbook_url: "https://runbooks.example/down",
  },
  state: "inactive",
};

/**
 * Fires with UpForTwoSeconds on every target, at a lower severity: Alertmanager's inhibition rule
 * (INHIBITION) mutes it while UpForTwoSeconds fires on the same instance, so it is held `suppressed`.
 */
const UP_NOTICE: AlertingRuleSpec = {
  type: "alerting",
  name: "UpNotice",
  expr: "up == 1",
  for: undefined,
  forSeconds: 0,
  labels: { severity: "notice" },
  annotations: { summary: "Target {{ $labels.instance }} is up (notice)" },
  state: "firing",
};

const JOB_UP_SUM: RecordingRuleSpec = {
  type: "recording",
  name: "job:up:sum",
  expr: "sum by (job) (up)",
  labels: { aggregation: "job" },
  health: "ok",
  lastError: undefined,
  hasSeries: true,
};

/**
 * Parses and is valid, but fails at every evaluation: `+ 0` drops `__name__`, leaving `up` and
 * `scrape_samples_scraped` of the same target with identical label sets. (Checked against Prometheus 2.42.)
 */
const BROKEN: RecordingRuleSpec = {
  type: "recording",
  name: "broken:duplicate_labelset",
  expr: '{__name__=~"up|scrape_samples_scraped"} + 0',
  labels: {},
  health: "err",
  lastError: "vector cannot contain metrics with the same labelset",
  hasSeries: false,
};

/** Healthy, but reads a metric nobody exposes: it records no series. */
const NO_SERIES: RecordingRuleSpec = {
  type: "recording",
  name: "job:missing:sum",
  expr: "sum by (job) (metric_nobody_exposes_total)",
  labels: {},
  health: "ok",
  lastError: undefined,
  hasSeries: false,
};

/** Reads the failing recording rule: it cannot fire (it is inactive, with health ok). */
const READS_BROKEN: AlertingRuleSpec = {
  type: "alerting",
  name: "DuplicateLabelsetHigh",
  expr: `${BROKEN.name} > 0`,
  for: undefined,
  forSeconds: 0,
  labels: { severity: "critical" },
  annotations: { summary: "Reads a recording rule that fails" },
  state: "inactive",
};

/** Reads the healthy recording rule, which has series: it can fire (it does not: every job is up). */
const READS_HEALTHY: AlertingRuleSpec = {
  type: "alerting",
  name: "JobDown",
  expr: `${JOB_UP_SUM.name} == 0`,
  for: undefined,
  forSeconds: 0,
  labels: { severity: "page" },
  annotations: { summary: "Job {{ $labels.job }} has no target up" },
  state: "inactive",
};

/** Reads the recording rule without series: it cannot fire. */
const READS_NO_SERIES: AlertingRuleSpec = {
  type: "alerting",
  name: "MissingDataHigh",
  expr: `${NO_SERIES.name} > 0`,
  for: undefined,
  forSeconds: 0,
  labels: { severity: "warning" },
  annotations: { summary: "Reads a recording rule without series" },
  state: "inactive",
};

/**
 * The rules file the stack's Prometheus evaluates (every second, on its scrape of itself), in file order,
 * and each rule by name for tests. /api/v1/rules reports the groups by name (Prometheus sorts a file's
 * groups so: see reportedGroups), the rules of each in file order.
 */
export const RULES = {
  file: "rules.yml",
  groups: [
    {
      name: "availability",
      interval: "1s",
      intervalSeconds: 1,
      rules: [TARGET_UP, UP_FOR_TWO_SECONDS, UP_FOR_AN_HOUR, TARGET_DOWN],
    },
    {
      name: "dependencies",
      interval: "1s",
      intervalSeconds: 1,
      rules: [READS_BROKEN, READS_HEALTHY, NO_SERIES, READS_NO_SERIES],
    },
    { name: "recording", interval: "1s", intervalSeconds: 1, rules: [JOB_UP_SUM, BROKEN] },
    { name: "suppression", interval: "1s", intervalSeconds: 1, rules: [UP_NOTICE] },
  ],
  targetUp: TARGET_UP,
  upForTwoSeconds: UP_FOR_TWO_SECONDS,
  upForAnHour: UP_FOR_AN_HOUR,
  targetDown: TARGET_DOWN,
  upNotice: UP_NOTICE,
  jobUpSum: JOB_UP_SUM,
  broken: BROKEN,
  noSeries: NO_SERIES,
  readsBroken: READS_BROKEN,
  readsHealthy: READS_HEALTHY,
  readsNoSeries: READS_NO_SERIES,
} as const;

/**
 * The stack's Alertmanager's one inhibition rule: a firing UpForTwoSeconds (severity warning) mutes
 * UpNotice (severity notice) of the same instance.
 */
export const INHIBITION = {
  source: UP_FOR_TWO_SECONDS.name,
  target: UP_NOTICE.name,
  equal: ["instance"],
} as const;

/** RULES.groups in the order /api/v1/rules reports them: by name (code-point order). */
export function reportedGroups(): ReadonlyArray<(typeof RULES.groups)[number]> {
  return [...RULES.groups].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A matcher as Alertmanager's API v2 takes and reports it. */
export interface SilenceMatcher {
  readonly name: string;
  readonly value: string;
  readonly isRegex: boolean;
  readonly isEqual: boolean;
}

export interface SilenceSpec {
  readonly matchers: readonly SilenceMatcher[];
  readonly createdBy: string;
  readonly comment: string;
  /** startsAt relative to creation (seconds). */
  readonly startsInSeconds: number;
  /** endsAt minus startsAt (seconds), as created (the expired one is then cut short). */
  readonly durationSeconds: number;
  /** `status.state` once the stack is up. */
  readonly state: "active" | "pending" | "expired";
}

const equal = (name: string, value: string): SilenceMatcher => ({
  name,
  value,
  isRegex: false,
  isEqual: true,
});

/**
 * The silences created in the stack's Alertmanager. Only `active` matches a live alert (TargetUp, which
 * Alertmanager then reports `suppressed`); UpForTwoSeconds stays unsilenced. Alertmanager refuses a silence
 * whose matchers all match the empty string, hence the extra equality matcher next to the negative one.
 */
export const SILENCES = {
  active: {
    matchers: [equal("alertname", "TargetUp")],
    createdBy: "on-call",
    comment: "Expected during the migration, see ticket OPS-1234",
    startsInSeconds: 0,
    durationSeconds: 3600,
    state: "active",
  },
  pending: {
    matchers: [equal("alertname", "UpForTwoSeconds")],
    createdBy: "change-manager",
    comment: "Planned maintenance window, ticket CHG-42",
    startsInSeconds: 3600,
    durationSeconds: 3600,
    state: "pending",
  },
  expired: {
    matchers: [equal("alertname", "TargetDown")],
    createdBy: "on-call",
    comment: "Lifted early, ticket OPS-1200",
    startsInSeconds: 0,
    durationSeconds: 3600,
    state: "expired",
  },
  regex: {
    matchers: [{ name: "alertname", value: "Disk.*|Memory.*", isRegex: true, isEqual: true }],
    createdBy: "capacity-bot",
    comment: "Hardware replacement in rack 7",
    startsInSeconds: 0,
    durationSeconds: 7200,
    state: "active",
  },
  negative: {
    matchers: [
      equal("alertname", "UpForAnHour"),
      { name: "severity", value: "info", isRegex: false, isEqual: false },
    ],
    createdBy: "on-call",
    comment: "Everything but info while tuning thresholds",
    startsInSeconds: 0,
    durationSeconds: 1800,
    state: "active",
  },
} as const satisfies Record<string, SilenceSpec>;

export type SilenceKey = keyof typeof SILENCES;

/** The id Alertmanager gave each silence of SILENCES. */
export type CreatedSilences = Readonly<Record<SilenceKey, string>>;

export interface RunningAlertmanager {
  /** Base URL, e.g. `http://127.0.0.1:41235` (the API is under `/api/v2`). */
  url: string;
  silences: CreatedSilences;
  /** The JSON of `GET <url>/api/v2/<path>` (`api("silences")`), asked directly; throws unless 200. */
  api<T = unknown>(path: string): Promise<T>;
}

export interface AlertingStack {
  prometheus: Pick<RunningPrometheus, "url" | "api"> & {
    /** The `instance` label of its scrape of itself (`127.0.0.1:<port>`), on every alert. */
    instance: string;
  };
  alertmanager: RunningAlertmanager;
  /** Stops both servers and deletes their directories. */
  close(): Promise<void>;
}

export interface AlertingStackOptions {
  /** The dataset backfilled besides the live self-scrape (default: the standard one, see startPrometheus). */
  openMetrics?: StartPrometheusOptions["openMetrics"];
}

/** How long startAlertingStack waits for the rules and alerts to settle (normally ~9 s). */
const SETTLE_TIMEOUT_MS = 30_000;

/**
 * Starts Alertmanager and a Prometheus that scrapes itself every second, evaluates RULES every second and
 * sends its alerts to that Alertmanager (both on 127.0.0.1, free ports), creates SILENCES, and resolves
 * once everything is in the state RULES and SILENCES describe. Prometheus needs ~5 s before its first
 * scrape (its target discovery batches updates every 5 s), so this takes ~9 s.
 */
export async function startAlertingStack(options: AlertingStackOptions = {}): Promise<AlertingStack> {
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    const am = await startAlertmanager();
    closers.push(am.close);
    // Created while Prometheus starts: they need nothing from it.
    const silencesCreated = createSilences(am.url);
    silencesCreated.catch(() => undefined); // awaited below; not unhandled meanwhile

    const prometheus = await startPrometheus({
      openMetrics: options.openMetrics,
      config: (port) => prometheusConfig(port, am.url),
      files: { [RULES.file]: rulesFile() },
      // Resend to Alertmanager every evaluation: alerts that fire before Prometheus has discovered the
      // Alertmanager (up to 5 s) are dropped and otherwise only sent again after the default 1 min.
      args: ["--rules.alert.resend-delay=1s"],
    });
    closers.push(prometheus.close);
    const instance = new URL(prometheus.url).host;
    const silences = await silencesCreated;

    await settle(prometheus, am.url, silences);
    let closing: Promise<void> | undefined;
    return {
      prometheus: { url: prometheus.url, api: prometheus.api, instance },
      alertmanager: { url: am.url, silences, api: (path) => amApi(am.url, path) },
      close() {
        closing ??= closeAll();
        return closing;
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The JSON of `GET <alertmanagerUrl>/api/v2/<path>`; throws unless 200. */
export async function amApi<T = unknown>(alertmanagerUrl: string, path: string): Promise<T> {
  const response = await fetch(`${alertmanagerUrl}/api/v2/${path}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`Alertmanager ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

function prometheusConfig(port: number, alertmanagerUrl: string): string {
  // JSON is YAML: no quoting pitfalls.
  return JSON.stringify(
    {
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      scrape_configs: [{ job_name: "prometheus", static_configs: [{ targets: [`127.0.0.1:${port}`] }] }],
      alerting: {
        alertmanagers: [
          { api_version: "v2", static_configs: [{ targets: [new URL(alertmanagerUrl).host] }] },
        ],
      },
      rule_files: [RULES.file],
    },
    null,
    2,
  );
}

function rulesFile(): string {
  return JSON.stringify(
    {
      groups: RULES.groups.map((group) => ({
        name: group.name,
        interval: group.interval,
        rules: group.rules.map((rule) =>
          rule.type === "alerting"
            ? {
                alert: rule.name,
                expr: rule.expr,
                ...(rule.for === undefined ? {} : { for: rule.for }),
                labels: rule.labels,
                annotations: rule.annotations,
              }
            : { record: rule.name, expr: rule.expr, labels: rule.labels },
        ),
      })),
    },
    null,
    2,
  );
}

const ALERTMANAGER_CONFIG = JSON.stringify(
  {
    // One receiver that notifies nobody; short waits so alerts are grouped (and visible as such) at once.
    route: {
      receiver: "null",
      group_by: ["alertname"],
      group_wait: "1s",
      group_interval: "1s",
      repeat_interval: "1h",
    },
    receivers: [{ name: "null" }],
    inhibit_rules: [
      {
        source_matchers: [`alertname="${INHIBITION.source}"`],
        target_matchers: [`alertname="${INHIBITION.target}"`],
        equal: INHIBITION.equal,
      },
    ],
  },
  null,
  2,
);

/** Starts an Alertmanager on 127.0.0.1 (free port, no silences, a receiver that does nothing). */
export async function startAlertmanager(): Promise<{ url: string; close(): Promise<void> }> {
  const binary = alertmanagerBinary();
  if (binary === undefined) throw new Error("no Alertmanager binary on PATH (see alertmanagerAvailable)");
  const dir = await mkdtemp(join(tmpdir(), "alertmanager-test-"));
  try {
    const configFile = join(dir, "alertmanager.yml");
    await writeFile(configFile, ALERTMANAGER_CONFIG);
    for (let tries = 1; ; tries++) {
      const port = await freePort();
      const child: ChildProcess = spawn(
        binary,
        [
          `--config.file=${configFile}`,
          `--storage.path=${join(dir, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
          // Empty: no cluster (gossip) listener, which would otherwise bind 0.0.0.0:9094.
          "--cluster.listen-address=",
          "--log.level=warn",
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      const url = `http://127.0.0.1:${port}`;
      try {
        await waitReady(url, child, 30_000, "alertmanager");
      } catch (error) {
        await stop(child);
        // Another process may have taken the port between freePort() and bind: try another one.
        if (tries < 3 && String(error).includes("address already in use")) continue;
        throw error;
      }
      return { url, close: () => stop(child).then(() => rm(dir, { recursive: true, force: true })) };
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function createSilences(alertmanagerUrl: string): Promise<CreatedSilences> {
  const now = Date.now();
  const ids: Partial<Record<SilenceKey, string>> = {};
  for (const [key, spec] of Object.entries(SILENCES) as Array<[SilenceKey, SilenceSpec]>) {
    const startsAt = now + spec.startsInSeconds * 1000;
    const response = await fetch(`${alertmanagerUrl}/api/v2/silences`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        matchers: spec.matchers,
        createdBy: spec.createdBy,
        comment: spec.comment,
        startsAt: new Date(startsAt).toISOString(),
        endsAt: new Date(startsAt + spec.durationSeconds * 1000).toISOString(),
      }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`creating silence ${key}: ${response.status} ${text}`);
    ids[key] = (JSON.parse(text) as { silenceID: string }).silenceID;
  }
  // Expiring an active silence is how it becomes "expired" (it stays listed until the retention ends).
  const response = await fetch(`${alertmanagerUrl}/api/v2/silence/${ids.expired}`, { method: "DELETE" });
  if (response.status !== 200)
    throw new Error(`expiring silence: ${response.status} ${await response.text()}`);
  return ids as CreatedSilences;
}

interface PromAlert {
  labels: Record<string, string>;
  state: string;
}
interface PromRuleGroups {
  groups: Array<{
    name: string;
    rules: Array<{ name: string; health: string; lastError?: string; state?: string }>;
  }>;
}
interface AmAlert {
  labels: Record<string, string>;
  fingerprint: string;
  status: { state: string; inhibitedBy: string[] };
}
interface AmSilence {
  id: string;
  status: { state: string };
}

/** Polls until the rules, alerts and silences are as RULES and SILENCES say; throws with what it saw. */
async function settle(
  prometheus: RunningPrometheus,
  alertmanagerUrl: string,
  ids: CreatedSilences,
): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let lastSeen = "nothing yet";
  while (Date.now() < deadline) {
    try {
      const missing = await unsettled(prometheus, alertmanagerUrl, ids);
      if (missing.length === 0) return;
      lastSeen = missing.join("; ");
    } catch (error) {
      lastSeen = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the alerting stack did not settle within ${SETTLE_TIMEOUT_MS} ms: ${lastSeen}`);
}

async function unsettled(
  prometheus: RunningPrometheus,
  alertmanagerUrl: string,
  ids: CreatedSilences,
): Promise<string[]> {
  const recorded = RULES.groups
    .flatMap((group): readonly RuleSpec[] => group.rules)
    .filter((rule) => rule.type === "recording");
  const [{ alerts }, rules, amAlerts, silences, { result: series }] = await Promise.all([
    prometheus.api<{ alerts: PromAlert[] }>("alerts", {}),
    prometheus.api<PromRuleGroups>("rules", {}),
    amApi<AmAlert[]>(alertmanagerUrl, "alerts"),
    amApi<AmSilence[]>(alertmanagerUrl, "silences"),
    prometheus.api<{ result: Array<{ metric: { __name__: string } }> }>("query", {
      query: `group by (__name__) ({__name__=~"${recorded.map((rule) => rule.name).join("|")}"})`,
    }),
  ]);
  const missing: string[] = [];
  const reported = new Map(rules.groups.flatMap((group) => group.rules.map((rule) => [rule.name, rule])));
  for (const spec of RULES.groups.flatMap((group): readonly RuleSpec[] => group.rules)) {
    const rule = reported.get(spec.name);
    if (spec.type === "alerting") {
      if (rule?.state !== spec.state) missing.push(`${spec.name} is ${rule?.state}, not ${spec.state}`);
      // The alert as /api/v1/alerts lists it (an inactive rule has none).
      const alert = alerts.find((a) => a.labels.alertname === spec.name);
      if (spec.state !== "inactive" && alert?.state !== spec.state)
        missing.push(`alert ${spec.name} is ${alert?.state}, not ${spec.state}`);
      if (spec.state === "firing" && !amAlerts.some((a) => a.labels.alertname === spec.name))
        missing.push(`Alertmanager has no ${spec.name}`);
    } else {
      if (rule?.health !== spec.health || (spec.lastError !== undefined && !rule?.lastError))
        missing.push(`${spec.name} health is ${rule?.health} (${rule?.lastError}), not ${spec.health}`);
      if (series.some((s) => s.metric.__name__ === spec.name) !== spec.hasSeries)
        missing.push(`${spec.name} ${spec.hasSeries ? "has no series yet" : "has series"}`);
    }
  }
  const inhibited = amAlerts.find((a) => a.labels.alertname === INHIBITION.target);
  const source = amAlerts.find((a) => a.labels.alertname === INHIBITION.source);
  if (source === undefined || !inhibited?.status.inhibitedBy.includes(source.fingerprint))
    missing.push(
      `${INHIBITION.target} is not inhibited by ${INHIBITION.source} (${inhibited?.status.state})`,
    );
  for (const [key, spec] of Object.entries(SILENCES) as Array<[SilenceKey, SilenceSpec]>) {
    const state = silences.find((silence) => silence.id === ids[key])?.status.state;
    if (state !== spec.state) missing.push(`silence ${key} is ${state}, not ${spec.state}`);
  }
  return missing;
}
