import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { explainRuleError } from "../../src/results/ruleErrors.js";
import { ruleFindings } from "../../src/results/ruleFindings.js";
import {
  FindSeries,
  GetMetricMetadata,
  ListAlerts,
  ListLabels,
  ListLabelValues,
  ListMetrics,
  ListRules,
  ListSilences,
} from "../../tools/index.js";
import { rulesWithDependencies } from "../../tools/ruleDependencies.js";
import type { Tool, ToolCall, ToolSettings } from "../../tools/types.js";
import { type AlertingStack, alertmanagerAvailable, RULES } from "../support/alerting.js";
import { type AlertingAmp, startAlertingAmp } from "../support/alertingAmp.js";
import type { FakeAmp } from "../support/fakeAmp.js";
import { startFaultServer } from "../support/faultServer.js";
import { openMetricsText, prometheusAvailable } from "../support/prometheus.js";
import type { SigV4Proxy } from "../support/sigv4Proxy.js";
import { maxRealTokens } from "../support/tokenizers.js";
import { DEFAULT_BUDGET, makeToolCall, toolError, toolResult } from "../support/toolCall.js";

/**
 * The discovery and alerting tools against a real Prometheus (rules evaluated on its live self-scrape, one
 * of them failing) and a real Alertmanager (Prometheus's alerts, silences in every state): each answer is
 * what the upstream API says, fetched directly here, reshaped and ordered as documented. In both modes:
 * a plain Prometheus (PROMETHEUS_URL, ALERTMANAGER_URL), and AMP through the SigV4-verifying proxy, with
 * Alertmanager under the workspace path.
 */

const REGION = "us-west-2";
const WS = "ws-44444444-aaaa-bbbb-cccc-000000000004";
/** Distinct values of `id` on the big family: a label with tens of thousands of values. */
const BIG_VALUES = 30_000;

type Json = Record<string, unknown>;

/** The standard dataset, and one family whose `id` label takes BIG_VALUES values. */
function datasetWithBigLabel(): string {
  const lines = [
    openMetricsText()
      .replace(/# EOF\n$/, "")
      .trimEnd(),
    "# HELP big_items Items.",
    "# TYPE big_items gauge",
  ];
  for (let i = 0; i < BIG_VALUES; i++) {
    lines.push(`big_items{id="item-${String(i).padStart(6, "0")}",shard="${i % 7}"} ${i} 1700000000`);
  }
  lines.push("# EOF");
  return `${lines.join("\n")}\n`;
}

/** A tool's result as the model receives it through the server: the value, its text, and the hint (if any). */
async function run(
  tool: Tool,
  args: Json,
  call: ToolCall,
): Promise<{ value: Json; text: string; hint: string | undefined }> {
  const result = await toolResult(tool, args, call);
  if (result.isError) throw new Error(`${tool.name} failed: ${JSON.stringify(result.content)}`);
  const [first, second] = result.content as Array<{ text: string }>;
  return { value: result.structuredContent as Json, text: first?.text ?? "", hint: second?.text };
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const pairs = (labels: Json) =>
  Object.entries(labels)
    .filter(([name]) => name !== "__name__")
    .sort(([a], [b]) => byCodePoint(a, b))
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(",");

function expectedAlert(alert: Json): Json {
  const annotations = alert.annotations as Json;
  return {
    labels: alert.labels,
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    state: alert.state,
    activeAt: alert.activeAt,
    value: alert.value,
    // No restart here: the stored record's onset is the alert's activeAt.
    onset: alert.activeAt,
  };
}

/** The alerts without the fields Alertmanager's status adds. */
function withoutAlertmanager(alerts: unknown): Json[] {
  return (alerts as Json[]).map(({ alertmanager: _, silenced_by: _s, inhibited_by: _i, ...rest }) => rest);
}

/** The fixture's one error (RULES.broken), explained: what it means, and that nothing is recorded. */
const DUPLICATE_LABELSET_MEANS =
  /^Two results had the same labels once the metric name was dropped .* Nothing is recorded, so alerts and dashboards that read this rule see no new data\.$/;

/** What ListRules knows of the recording rules: health and error from /api/v1/rules, series from a query. */
interface Recordings {
  rules: Map<string, Json>;
  withSeries: Set<string>;
}

/** The recording rules of Prometheus's own answer, and those with series now, asked directly. */
async function recordingsOf(
  groups: Json[],
  api: <T>(path: string, params?: Record<string, string>) => Promise<T>,
): Promise<Recordings> {
  const rules = new Map(
    groups
      .flatMap((group) => group.rules as Json[])
      .filter((rule) => rule.type === "recording")
      .map((rule) => [String(rule.name), rule]),
  );
  const { result } = await api<{ result: Array<{ metric: Json }> }>("query", {
    query: `count by (__name__) ({__name__=~"${[...rules.keys()].join("|")}"})`,
  });
  return { rules, withSeries: new Set(result.map((series) => String(series.metric.__name__))) };
}

/**
 * What ListRules adds to an alerting rule: the recording rules its query reads (the fixture's queries name
 * them as whole words, `job:up:sum == 0`), each with its health and whether it has series now, and
 * `can_fire: false` with why when one fails or has none.
 */
function expectedDependencies(rule: Json, recordings: Recordings): Json {
  const words = String(rule.query).split(/[^\w:]+/);
  const read = [...recordings.rules.keys()].filter((name) => words.includes(name));
  if (read.length === 0) return {};
  const why = read.flatMap((name) => {
    const recording = recordings.rules.get(name) as Json;
    if (recording.health === "err") return [`reads ${name}, whose evaluation fails: ${recording.lastError}`];
    return recordings.withSeries.has(name) ? [] : [`reads ${name}, which has no series now`];
  });
  return {
    depends_on: read.map((name) => ({
      name,
      health: recordings.rules.get(name)?.health,
      has_series: recordings.withSeries.has(name),
    })),
    ...(why.length > 0 ? { can_fire: false, why: why.join("; ") } : {}),
  };
}

function expectedRules(groups: Json[], recordings: Recordings): Json[] {
  const rules = groups.flatMap((group) =>
    (group.rules as Json[]).map((rule) => {
      const alerting = rule.type === "alerting";
      const labels = (rule.labels ?? {}) as Json;
      const annotations = (rule.annotations ?? {}) as Json;
      const seconds = Number(rule.duration ?? 0);
      return {
        group: group.name,
        name: rule.name,
        type: rule.type,
        query: rule.query,
        ...(seconds > 0
          ? {
              for:
                seconds >= 3600 ? `${seconds / 3600}h` : seconds >= 60 ? `${seconds / 60}m` : `${seconds}s`,
            }
          : {}),
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        health: rule.health,
        // The rule file, where a fix goes, only beside an error.
        ...(rule.lastError
          ? {
              file: group.file,
              lastError: rule.lastError,
              error_means: expect.stringMatching(DUPLICATE_LABELSET_MEANS),
            }
          : {}),
        ...(alerting ? { state: rule.state, alerts: (rule.alerts as unknown[]).length } : {}),
        ...(alerting ? expectedDependencies(rule, recordings) : {}),
      };
    }),
  );
  return rules.sort(
    (a, b) => byCodePoint(String(a.group), String(b.group)) || byCodePoint(String(a.name), String(b.name)),
  );
}

const SILENCE_STATES = ["active", "pending", "expired"];

function expectedSilence(silence: Json): Json {
  const matchers = (silence.matchers as Json[]).map((m) => {
    const op = `${m.isEqual === false ? "!" : ""}${m.isRegex ? "~" : "="}`;
    return `${m.name}${op === "!=" || op === "=" ? op : op === "~" ? "=~" : "!~"}${JSON.stringify(m.value)}`;
  });
  return {
    id: silence.id,
    matchers,
    startsAt: silence.startsAt,
    endsAt: silence.endsAt,
    createdBy: silence.createdBy,
    comment: silence.comment,
    state: (silence.status as Json).state,
    updatedAt: silence.updatedAt,
  };
}

function withoutEvaluation(rules: unknown): unknown {
  return (rules as Json[]).map(({ lastEvaluation: _at, ...rest }) => rest);
}

describe.skipIf(!prometheusAvailable() || !alertmanagerAvailable())(
  "discovery and alerting tools against a real Prometheus and Alertmanager",
  () => {
    let stack: AlertingStack;
    let proxy: SigV4Proxy;
    let amp: FakeAmp;
    /** When the stack was started: every rule evaluation these tests see comes after it. */
    let stackStartedAt: number;

    let running: AlertingAmp | undefined;

    beforeAll(async () => {
      stackStartedAt = Date.now();
      running = await startAlertingAmp(REGION, WS, { openMetrics: datasetWithBigLabel });
      ({ stack, proxy, amp } = running);
    }, 120_000);

    afterAll(async () => {
      await running?.close();
    });

    beforeEach(() => proxy.reset());

    const api = <T>(path: string, params: Record<string, string> = {}) =>
      stack.prometheus.api<T>(path, params);

    const modes: Array<
      [string, () => { call: (overrides?: Partial<ToolSettings>) => ToolCall; args: Json }]
    > = [
      [
        "a plain Prometheus (PROMETHEUS_URL, ALERTMANAGER_URL)",
        () => ({
          call: (overrides = {}) =>
            makeToolCall({
              prometheusUrl: stack.prometheus.url,
              prometheusAuth: "none",
              alertmanagerUrl: stack.alertmanager.url,
              ...overrides,
            }),
          args: {},
        }),
      ],
      [
        "AMP through the SigV4 proxy (workspace_id, Alertmanager under the workspace)",
        () => ({
          call: (overrides = {}) =>
            makeToolCall({ defaultRegion: REGION, ampEndpoint: amp.url, ...overrides }),
          args: { workspace_id: WS },
        }),
      ],
    ];

    describe.each(modes)("%s", (mode, setup) => {
      const amp = mode.startsWith("AMP");
      const call = (overrides?: Partial<ToolSettings>) => setup().call(overrides);
      const args = (more: Json = {}) => ({ ...setup().args, ...more });

      afterAll(() => {
        // Every request through the proxy in this mode carried a valid signature.
        if (amp) expect(proxy.lastRejection).toBeUndefined();
      });

      it("ListMetrics: match narrows the names to what Prometheus says for it", async () => {
        const match = '{__name__=~"test_.*|up"}';
        const upstream = await api<string[]>("label/__name__/values", { "match[]": match });
        const { value } = await run(ListMetrics, args({ match }), call());
        expect(value).toStrictEqual({ metrics: [...upstream].sort(byCodePoint) });
        expect(value.metrics).toEqual(["test_requests_total", "test_temperature_celsius", "up"]);
        // A list of selectors is `match[]` repeated: any of them.
        const both = await run(ListMetrics, args({ match: ["test_requests_total", "up"] }), call());
        expect(both.value).toStrictEqual({ metrics: ["test_requests_total", "up"] });
        if (amp)
          expect(proxy.requests.at(-1)?.rawUrl).toContain("match%5B%5D=test_requests_total&match%5B%5D=up");
      });

      it("ListLabels: every label name, or those of the series match selects", async () => {
        const all = await api<string[]>("labels");
        expect((await run(ListLabels, args(), call())).value).toStrictEqual({
          labels: [...all].sort(byCodePoint),
        });
        const { value } = await run(ListLabels, args({ match: "test_requests_total" }), call());
        expect(value).toStrictEqual({ labels: ["__name__", "instance", "job"] });
        // start keeps to recent series: the 2023 dataset's labels (room) are gone, the live scrape's stay.
        const recent = await run(ListLabels, args({ start: "now-5m" }), call());
        expect(recent.value.labels).toContain("job");
        expect(recent.value.labels).not.toContain("room");
        const limited = await run(ListLabels, args({ limit: "2" }), call());
        expect(limited.value.labels).toEqual([...all].sort(byCodePoint).slice(0, 2));
        expect(limited.value.truncated).toMatchObject({ cut_by: "limit", returned: { labels: 2 } });
      });

      it("ListLabelValues: the values of a label, narrowed by match and time, with the label named", async () => {
        const upstream = await api<string[]>("label/job/values");
        const { value } = await run(ListLabelValues, args({ label: "job" }), call());
        expect(value).toStrictEqual({ label: "job", values: [...upstream].sort(byCodePoint) });
        expect(value.values).toEqual(expect.arrayContaining(["api", "prometheus"]));
        const matched = await run(
          ListLabelValues,
          args({ label: "instance", match: "test_requests_total" }),
          call(),
        );
        expect(matched.value).toStrictEqual({ label: "instance", values: ["a", "b"] });
        // start keeps to recent series: the live scrape's jobs, not the 2023 dataset's.
        const recent = await run(
          ListLabelValues,
          args({ label: "job", start: "now-5m", end: "now" }),
          call(),
        );
        expect(recent.value).toStrictEqual({ label: "job", values: ["prometheus"] });
        const missing = await run(ListLabelValues, args({ label: "no_such_label" }), call());
        expect(missing.value).toStrictEqual({ label: "no_such_label", values: [] });
        expect(missing.hint).toMatch(/No series has the label no_such_label.*ListLabels/);
      });

      it("ListLabelValues: 30,000 values are cut within the budget, the first ones in order, counted", async () => {
        const upstream = await api<string[]>("label/id/values");
        expect(upstream).toHaveLength(BIG_VALUES);
        const { value, text } = await run(ListLabelValues, args({ label: "id" }), call());
        const values = value.values as string[];
        expect(Object.keys(value)).toEqual(["truncated", "label", "values"]);
        expect(values.length).toBeGreaterThan(1_000);
        expect(values).toEqual([...upstream].sort(byCodePoint).slice(0, values.length));
        expect(value.truncated).toMatchObject({
          cut_by: "size",
          total: { values: BIG_VALUES },
          returned: { values: values.length },
        });
        expect(String((value.truncated as Json).note)).toMatch(
          /^There are 30,000 values of id, more than the 20,000-token budget/,
        );
        expect(maxRealTokens(text)).toBeLessThanOrEqual(DEFAULT_BUDGET.tokens);
      });

      it("FindSeries: the label sets match selects, sorted; a big answer is cut with the labels to narrow by", async () => {
        const upstream = await api<Json[]>("series", { "match[]": "test_requests_total" });
        const { value } = await run(FindSeries, args({ match: "test_requests_total" }), call());
        expect(value).toStrictEqual({
          series: [...upstream].sort((a, b) => byCodePoint(pairs(a), pairs(b))),
        });
        expect(value.series).toHaveLength(2);

        // start and end: only the live `up` of the self-scrape; limit cuts to the first series in order.
        const live = await run(FindSeries, args({ match: "up", start: "now-5m" }), call());
        expect(live.value).toStrictEqual({
          series: [{ __name__: "up", instance: stack.prometheus.instance, job: "prometheus" }],
        });
        const old = await run(
          FindSeries,
          args({ match: "big_items", end: "1700000100", limit: "2" }),
          call(),
        );
        expect(old.value.series).toStrictEqual([
          { __name__: "big_items", id: "item-000000", shard: "0" },
          { __name__: "big_items", id: "item-000001", shard: "1" },
        ]);
        expect(old.value.truncated).toMatchObject({ cut_by: "limit", returned: { series: 2 } });

        const big = await run(FindSeries, args({ match: "big_items" }), call());
        const series = big.value.series as Json[];
        expect(series.length).toBeGreaterThan(100);
        expect(series[0]).toStrictEqual({ __name__: "big_items", id: "item-000000", shard: "0" });
        expect(big.value.truncated).toMatchObject({ cut_by: "size", total: { series: BIG_VALUES } });
        const note = String((big.value.truncated as Json).note);
        expect(note).toContain("id (30,000 values)");
        expect(note).toContain("shard (7 values)");
        expect(maxRealTokens(big.text)).toBeLessThanOrEqual(DEFAULT_BUDGET.tokens);
      });

      it("GetMetricMetadata: type, help and unit as the scraped targets declare them", async () => {
        const upstream = await api<Record<string, Json[]>>("metadata", {
          metric: "prometheus_http_requests_total",
        });
        const [declared] = upstream.prometheus_http_requests_total ?? [];
        const { value } = await run(
          GetMetricMetadata,
          args({ metric: "prometheus_http_requests_total" }),
          call(),
        );
        expect(value).toStrictEqual({
          metadata: [
            { metric: "prometheus_http_requests_total", type: declared?.type, help: declared?.help },
          ],
        });
        expect(declared?.type).toBe("counter");

        const all = await api<Record<string, Json[]>>("metadata");
        const limited = await run(GetMetricMetadata, args({ limit: "3" }), call());
        const names = Object.keys(all).sort(byCodePoint).slice(0, 3);
        expect((limited.value.metadata as Json[]).map((entry) => entry.metric)).toEqual(names);
        expect(limited.value.truncated).toMatchObject({
          cut_by: "limit",
          total: { metrics: Object.keys(all).length },
        });

        const none = await run(GetMetricMetadata, args({ metric: "up" }), call());
        expect(none.value).toStrictEqual({ metadata: [] });
        expect(none.hint).toMatch(/No metadata for up/);
        // `up` is backfilled here: its name is right, the hint must not say otherwise.
        expect(none.hint).toMatch(
          /only for metrics scraped .*not for recorded, remote-written or backfilled/,
        );
        expect(none.hint).not.toMatch(/check the name/i);
      });

      it("ListAlerts: firing before pending, newest first, each as Prometheus reports it", async () => {
        const { alerts } = await api<{ alerts: Json[] }>("alerts");
        const { value } = await run(ListAlerts, args(), call());
        const rank = (alert: Json) => (alert.state === "firing" ? 0 : 1);
        const expected = alerts
          .map(expectedAlert)
          .sort(
            (a, b) =>
              rank(a) - rank(b) ||
              Date.parse(String(b.activeAt)) - Date.parse(String(a.activeAt)) ||
              byCodePoint(String((a.labels as Json).alertname), String((b.labels as Json).alertname)),
          );
        // Alertmanager's side (the note, each firing alert's status) is checked in alertStatus.test.ts.
        expect({ ...value, note: undefined, alerts: withoutAlertmanager(value.alerts) }).toStrictEqual({
          note: undefined,
          alerts: expected,
        });
        const states = (value.alerts as Json[]).map(
          (alert) => `${(alert.labels as Json).alertname}:${alert.state}`,
        );
        expect(states.sort()).toEqual([
          "TargetUp:firing",
          "UpForAnHour:pending",
          "UpForTwoSeconds:firing",
          "UpNotice:firing",
        ]);
        const targetUp = (value.alerts as Json[]).find(
          (alert) => (alert.labels as Json).alertname === "TargetUp",
        );
        expect(targetUp?.annotations).toStrictEqual({
          summary: `Target ${stack.prometheus.instance} is up`,
          description: "up is 1 for job prometheus.",
        });
      });

      it("ListAlerts: state and match (a bare name is the alertname) filter here; a bad match is refused", async () => {
        const pending = await run(ListAlerts, args({ state: "pending" }), call());
        expect((pending.value.alerts as Json[]).map((a) => (a.labels as Json).alertname)).toEqual([
          "UpForAnHour",
        ]);
        const byName = await run(ListAlerts, args({ match: "TargetUp" }), call());
        expect((byName.value.alerts as Json[]).map((a) => (a.labels as Json).alertname)).toEqual([
          "TargetUp",
        ]);
        const bySeverity = await run(ListAlerts, args({ match: ['{severity=~"page|warning"}'] }), call());
        expect((bySeverity.value.alerts as Json[]).map((a) => (a.labels as Json).alertname).sort()).toEqual([
          "UpForAnHour",
          "UpForTwoSeconds",
        ]);
        const none = await run(ListAlerts, args({ state: "firing", match: "UpForAnHour" }), call());
        // The note counts all firing alerts, whatever match keeps (alertStatus.test.ts).
        expect(Object.keys(none.value)).toEqual(["note", "alerts"]);
        expect(none.value.alerts).toStrictEqual([]);
        expect(none.hint).toMatch(
          /^No firing alert matches match\..*GetHealthOverview shows what else is wrong/,
        );
        const bad = await toolError(ListAlerts, args({ match: "{severity=~" }), call());
        expect(bad.kind).toBe("invalid_arguments");
        expect(bad.message).toMatch(/^Invalid arguments: match: /);
        const limited = await run(ListAlerts, args({ limit: "1" }), call());
        expect(limited.value.truncated).toMatchObject({ cut_by: "limit", total: { alerts: 4 } });
        expect(String((limited.value.truncated as Json).note)).toMatch(/firing 3, pending 1/);
      });

      it("ListRules: every rule, by group then name, with health, lastError, for, state and its alerts counted", async () => {
        const { groups } = await api<{ groups: Json[] }>("rules");
        const recordings = await recordingsOf(groups, api);
        const { value } = await run(ListRules, args(), call());
        const rules = value.rules as Json[];
        expect(withoutEvaluation(rules)).toStrictEqual(expectedRules(groups, recordings));
        // Each rule's last evaluation is Prometheus's own, as it is now: one made since the stack started,
        // no earlier than the one its API gave just before (evaluations go on meanwhile).
        const evaluated = new Map(
          groups.flatMap((group) =>
            (group.rules as Json[]).map((rule) => [`${group.name}/${rule.name}`, rule.lastEvaluation]),
          ),
        );
        for (const rule of rules) {
          const key = `${rule.group}/${rule.name}`;
          const before = Date.parse(String(evaluated.get(key)));
          expect(before, key).toBeGreaterThan(stackStartedAt);
          expect(Date.parse(String(rule.lastEvaluation)), key).toBeGreaterThanOrEqual(before);
        }
        const broken = rules.find((rule) => rule.name === RULES.broken.name);
        expect(broken).toMatchObject({ health: "err", lastError: RULES.broken.lastError });
        expect(rules.find((rule) => rule.name === "UpForAnHour")).toMatchObject({
          for: "1h",
          state: "pending",
          alerts: 1,
        });
      });

      it("ListRules: type, name and group filters", async () => {
        const names = async (more: Json) =>
          ((await run(ListRules, args(more), call())).value.rules as Json[]).map((rule) => rule.name);
        expect(await names({ type: "record" })).toEqual(
          // By group (dependencies before recording), then name.
          [RULES.noSeries.name, RULES.broken.name, RULES.jobUpSum.name],
        );
        expect(await names({ name: "TargetUp" })).toEqual(["TargetUp"]);
        expect(await names({ name: ["TargetUp", "job:up:sum"] })).toEqual(["TargetUp", "job:up:sum"]);
        expect(await names({ group: "recording", type: "alert" })).toEqual([]);
        expect((await names({ group: "availability" })).length).toBe(4);
      });

      it("ListRules: health filters here (Prometheus has no such parameter); another value is refused", async () => {
        const { groups } = await api<{ groups: Json[] }>("rules");
        const upstream = groups
          .flatMap((group) =>
            (group.rules as Json[]).map((rule): Json & { group: string } => ({
              ...rule,
              group: String(group.name),
            })),
          )
          .sort((a, b) => byCodePoint(a.group, b.group) || byCodePoint(String(a.name), String(b.name)));
        for (const health of ["ok", "err"]) {
          const { value } = await run(ListRules, args({ health }), call());
          expect(
            (value.rules as Json[]).map((rule) => [rule.name, rule.health]),
            health,
          ).toEqual(upstream.filter((rule) => rule.health === health).map((rule) => [rule.name, health]));
        }
        const failing = await run(ListRules, args({ health: "err" }), call());
        expect((failing.value.rules as Json[]).map((rule) => rule.name)).toEqual([RULES.broken.name]);
        if (amp) expect(proxy.requests.at(-1)?.rawUrl).toBe(`/workspaces/${WS}/api/v1/rules`);
        // Every rule of the stack has been evaluated: none is unknown.
        const unknown = await run(ListRules, args({ health: "unknown" }), call());
        expect(upstream.some((rule) => rule.health === "unknown")).toBe(false);
        expect(unknown.value).toStrictEqual({ rules: [] });
        expect(unknown.hint).toBe("No rule has health unknown: ListRules without health lists every rule.");
        const bad = await toolError(ListRules, args({ health: "failing" }), call());
        expect(bad.kind).toBe("invalid_arguments");
        expect(bad.message).toBe("Invalid arguments: health must be ok, err or unknown");
      });

      it("ListRules: an alerting rule's dependencies, as Prometheus's rules and series say, whatever the filter leaves out", async () => {
        const { groups } = await api<{ groups: Json[] }>("rules");
        const recordings = await recordingsOf(groups, api);
        const dependenciesGroup = (groups.find((group) => group.name === "dependencies")?.rules ??
          []) as Json[];
        // type alert and group dependencies leave out every recording rule these alerts read.
        const { value } = await run(ListRules, args({ type: "alert", group: "dependencies" }), call());
        const rules = value.rules as Json[];
        expect(rules.map((rule) => rule.name)).toEqual(
          [RULES.readsBroken.name, RULES.readsHealthy.name, RULES.readsNoSeries.name].sort(byCodePoint),
        );
        for (const rule of rules) {
          const upstream = dependenciesGroup.find((r) => r.name === rule.name) as Json;
          const { depends_on, can_fire, why } = rule;
          expect({ depends_on, can_fire, why }, String(rule.name)).toStrictEqual({
            can_fire: undefined,
            why: undefined,
            ...expectedDependencies(upstream, recordings),
          });
        }
        const byName = new Map(rules.map((rule) => [rule.name, rule]));
        // The failing one (Prometheus reports it so), the healthy one with series, the one without.
        expect(recordings.rules.get(RULES.broken.name)?.health).toBe("err");
        expect(byName.get(RULES.readsBroken.name)).toMatchObject({
          health: "ok",
          state: "inactive",
          depends_on: [{ name: RULES.broken.name, health: "err", has_series: false }],
          can_fire: false,
          why: `reads ${RULES.broken.name}, whose evaluation fails: ${recordings.rules.get(RULES.broken.name)?.lastError}`,
        });
        expect(recordings.withSeries.has(RULES.jobUpSum.name)).toBe(true);
        expect(byName.get(RULES.readsHealthy.name)?.depends_on).toEqual([
          { name: RULES.jobUpSum.name, health: "ok", has_series: true },
        ]);
        expect(byName.get(RULES.readsHealthy.name)).not.toHaveProperty("can_fire");
        expect(recordings.withSeries.has(RULES.noSeries.name)).toBe(false);
        expect(byName.get(RULES.readsNoSeries.name)).toMatchObject({
          depends_on: [{ name: RULES.noSeries.name, health: "ok", has_series: false }],
          can_fire: false,
          why: `reads ${RULES.noSeries.name}, which has no series now`,
        });
        if (amp) {
          // One rules request for every rule, then one query for the series of all three recording rules.
          expect(proxy.requests.map((request) => request.rawUrl.replace(/\?.*/, ""))).toEqual([
            `/workspaces/${WS}/api/v1/rules`,
            `/workspaces/${WS}/api/v1/query`,
          ]);
          expect(new URL(`http://x${proxy.requests[1]?.rawUrl}`).searchParams.get("query")).toBe(
            `group by (__name__) ({__name__=~"${[RULES.broken.name, RULES.jobUpSum.name, RULES.noSeries.name].sort(byCodePoint).join("|")}"})`,
          );
          // Recording rules alone: Prometheus filters them, and no series are asked for.
          proxy.reset();
          await run(ListRules, args({ type: "record" }), call());
          expect(proxy.requests.map((request) => request.rawUrl)).toEqual([
            `/workspaces/${WS}/api/v1/rules?type=record`,
          ]);
        }
      });

      it("rulesWithDependencies and ruleFindings (the overview's): every rule as ListRules gives it; the failing one by its error, the alerts that cannot fire", async () => {
        const { groups } = await api<{ groups: Json[] }>("rules");
        const recordings = await recordingsOf(groups, api);
        const read = await rulesWithDependencies(args(), call());
        expect(read.note).toBeUndefined();
        const listed = (await run(ListRules, args(), call())).value.rules as Json[];
        const sorted = [...read.rules].sort(
          (a, b) => byCodePoint(a.group, b.group) || byCodePoint(a.name, b.name),
        );
        expect(withoutEvaluation(sorted)).toStrictEqual(withoutEvaluation(listed));
        const broken = recordings.rules.get(RULES.broken.name) as Json;
        const findings = ruleFindings(read.rules);
        expect(findings).toStrictEqual({
          failing: [
            {
              error: broken.lastError,
              means: explainRuleError(String(broken.lastError), "recording"),
              rules: [RULES.broken.name],
              blocks: [RULES.readsBroken.name],
            },
          ],
          // critical before warning
          cannot_fire: [
            {
              name: RULES.readsBroken.name,
              severity: "critical",
              why: `reads ${RULES.broken.name}, whose evaluation fails: ${broken.lastError}`,
            },
            {
              name: RULES.readsNoSeries.name,
              severity: "warning",
              why: `reads ${RULES.noSeries.name}, which has no series now`,
            },
          ],
        });
      });

      it("ListSilences: every silence, active first, matchers as PromQL matchers; state and match filter", async () => {
        const upstream = await stack.alertmanager.api<Json[]>("silences");
        const { value } = await run(ListSilences, args(), call());
        const silences = value.silences as Json[];
        expect([...silences].sort((a, b) => byCodePoint(String(a.id), String(b.id)))).toStrictEqual(
          upstream.map(expectedSilence).sort((a, b) => byCodePoint(String(a.id), String(b.id))),
        );
        expect(silences.map((silence) => SILENCE_STATES.indexOf(String(silence.state)))).toEqual(
          silences.map((silence) => SILENCE_STATES.indexOf(String(silence.state))).sort(),
        );
        const negative = silences.find((silence) => silence.id === stack.alertmanager.silences.negative);
        expect(negative?.matchers).toEqual(['alertname="UpForAnHour"', 'severity!="info"']);
        const regex = silences.find((silence) => silence.id === stack.alertmanager.silences.regex);
        expect(regex?.matchers).toEqual(['alertname=~"Disk.*|Memory.*"']);

        const expired = await run(ListSilences, args({ state: "expired" }), call());
        expect((expired.value.silences as Json[]).map((s) => s.id)).toEqual([
          stack.alertmanager.silences.expired,
        ]);
        const matched = await run(ListSilences, args({ match: 'alertname="TargetUp"' }), call());
        expect((matched.value.silences as Json[]).map((s) => s.id)).toEqual([
          stack.alertmanager.silences.active,
        ]);
        if (amp) {
          expect(proxy.requests.at(-1)?.rawUrl).toMatch(
            new RegExp(`^/workspaces/${WS}/alertmanager/api/v2/silences\\?filter=`),
          );
        }
        const bad = await toolError(ListSilences, args({ match: "alertname=~(" }), call());
        expect(bad.message).toMatch(/^Alertmanager rejected the request \(HTTP 400\): /);
        expect(bad.kind).toBe("rejected");
      });
    });

    it("ListRules answers when the series query fails: has_series left out, a note says why, a failing recording rule still stops its alert", async () => {
      // Prometheus's own rules answer, then the query refused as AMP refuses a role without aps:QueryMetrics.
      const rules = await fetch(`${stack.prometheus.url}/api/v1/rules`).then((response) => response.json());
      const denied =
        "User: arn:aws:sts::123456789012:assumed-role/mcp/x is not authorized to perform: aps:QueryMetrics";
      const server = await startFaultServer([
        { status: 200, body: rules },
        { status: 403, body: { message: denied } },
      ]);
      try {
        const call = makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" });
        const { value } = await run(ListRules, { type: "alert", group: "dependencies" }, call);
        expect(server.requests.map((url) => url.replace(/\?.*/, ""))).toEqual([
          "/api/v1/rules",
          "/api/v1/query",
        ]);
        expect(String(value.note)).toMatch(
          /^has_series is left out: the query for the recording rules' series failed: /,
        );
        expect(String(value.note)).toContain("aps:QueryMetrics");
        const byName = new Map((value.rules as Json[]).map((rule) => [rule.name, rule]));
        expect(byName.get(RULES.readsBroken.name)).toMatchObject({
          depends_on: [{ name: RULES.broken.name, health: "err" }],
          can_fire: false,
        });
        expect(byName.get(RULES.readsNoSeries.name)?.depends_on).toStrictEqual([
          { name: RULES.noSeries.name, health: "ok" },
        ]);
        expect(byName.get(RULES.readsNoSeries.name)).not.toHaveProperty("can_fire");
      } finally {
        await server.close();
      }
    });

    it("ListSilences on a plain Prometheus without ALERTMANAGER_URL says what to configure, and where Prometheus sends its alerts", async () => {
      const call = makeToolCall({ prometheusUrl: stack.prometheus.url, prometheusAuth: "none" });
      const error = await toolError(ListSilences, {}, call);
      expect(error.message).toMatch(/^No Alertmanager is configured: .*ALERTMANAGER_URL/);
      expect(error.message).toContain(`This Prometheus sends its alerts to ${stack.alertmanager.url}.`);
      expect(error.kind).toBe("not_allowed");
    });
  },
);
