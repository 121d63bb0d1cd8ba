import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetAlertHistory, ListAlerts } from "../../tools/index.js";
import { stepSeconds } from "../../tools/relativeTime.js";
import type { Tool, ToolCall } from "../../tools/types.js";
import { type FakeAmp, startFakeAmp } from "../support/fakeAmp.js";
import { errorBody, startFaultServer, successBody } from "../support/faultServer.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";
import { type SigV4Proxy, startSigV4Proxy } from "../support/sigv4Proxy.js";
import { makeToolCall, toolResult } from "../support/toolCall.js";

/**
 * GetAlertHistory and ListAlerts' onset against a real Prometheus: a stored earlier episode (ALERTS and
 * ALERTS_FOR_STATE backfilled with promtool, a restart's gap and a drop back to pending in it), an alert
 * firing live whose stored record began before Prometheus started, and a restart of Prometheus during
 * the test, which moves the alert's activeAt but not its onset. Every time is checked against what
 * Prometheus itself reports (its raw ALERTS samples, ALERTS_FOR_STATE values and /api/v1/alerts). Plain
 * Prometheus, and AMP through the SigV4-checking proxy.
 */

const REGION = "us-east-1";
const WS = "ws-37373737-aaaa-bbbb-cccc-000000000037";
const INTERVAL = 15;
/** The test's reference time: the stored record is laid out before it. */
const T0 = Math.floor(Date.now() / 1000 / INTERVAL) * INTERVAL;
/** EarlierOne: pending from here 10 minutes, then firing for 50, with a gap of 3 minutes and one pending sample. */
const EARLIER_FROM = T0 - 5 * 3600;
/** AlwaysOn: firing from here until a minute before the test, then live. */
const ALWAYS_FROM = T0 - 90 * 60;

type Json = Record<string, unknown>;

function storedRecord(): string {
  const lines = ["# TYPE ALERTS gauge", "# TYPE ALERTS_FOR_STATE gauge"];
  const alerts: string[] = [];
  const forState: string[] = [];
  const sample = (labels: string, state: string, t: number, activeAt: number) => {
    alerts.push(`ALERTS{${labels},alertstate="${state}"} 1 ${t}`);
    forState.push(`ALERTS_FOR_STATE{${labels}} ${activeAt} ${t}`);
  };
  for (let t = EARLIER_FROM; t <= EARLIER_FROM + 3600; t += INTERVAL) {
    const minute = (t - EARLIER_FROM) / 60;
    if (minute > 30 && minute < 33) continue; // a restart's gap
    const state = minute < 10 || (minute >= 33 && minute < 33.25) ? "pending" : "firing";
    sample('alertname="EarlierOne",severity="page"', state, t, EARLIER_FROM);
  }
  for (let t = ALWAYS_FROM; t <= T0 - 60; t += INTERVAL)
    sample('alertname="AlwaysOn",severity="info"', "firing", t, ALWAYS_FROM);
  // OpenMetrics wants each family's samples together, each series in time order.
  const bySeries = (list: string[]) => list.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return `${[...lines.slice(0, 1), ...bySeries(alerts), ...lines.slice(1), ...bySeries(forState), "# EOF"].join("\n")}\n`;
}

const RULES = JSON.stringify({
  groups: [
    {
      name: "live",
      interval: "1s",
      rules: [{ alert: "AlwaysOn", expr: "vector(1)", labels: { severity: "info" } }],
    },
  ],
});

interface RawSeries {
  metric: Record<string, string>;
  values: Array<[number, string]>;
}

const rfc3339 = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
const seconds = (text: unknown) => Date.parse(String(text)) / 1000;

async function run(tool: Tool, args: Json, call: ToolCall): Promise<Json> {
  const result = await toolResult(tool, args, call);
  if (result.isError) throw new Error(`${tool.name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Json;
}

describe.skipIf(!prometheusAvailable())("alert history and onsets, on a real Prometheus", () => {
  let prometheus: RunningPrometheus;
  let proxy: SigV4Proxy;
  let amp: FakeAmp;

  beforeAll(async () => {
    prometheus = await startPrometheus({
      openMetrics: storedRecord(),
      config: () => JSON.stringify({ global: { evaluation_interval: "1s" }, rule_files: ["rules.yml"] }),
      files: { "rules.yml": RULES },
    });
    proxy = await startSigV4Proxy({ target: prometheus.url, region: REGION });
    amp = await startFakeAmp({
      region: REGION,
      workspaces: [{ workspaceId: WS, status: "ACTIVE", prometheusEndpoint: proxy.workspaceUrl(WS) }],
    });
    await liveAlert();
  }, 60_000);

  afterAll(async () => {
    await Promise.all([proxy?.close(), amp?.close()]);
    await prometheus?.close();
  });

  /**
   * AlwaysOn as /api/v1/alerts reports it with an activeAt later than `after`, once its live record is
   * stored (waited for with a generous bound, 30 s).
   */
  async function liveAlert(after = 0): Promise<Json> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { alerts } = await prometheus.api<{ alerts: Json[] }>("alerts", {});
      const alert = alerts.find((a) => (a.labels as Json).alertname === "AlwaysOn");
      // Its ALERTS_FOR_STATE sample now holds this activeAt: the live record is written.
      const stored = await prometheus.api<{ result: Array<{ value: [number, string] }> }>("query", {
        query: 'ALERTS_FOR_STATE{alertname="AlwaysOn"}',
      });
      const recorded = Number(stored.result[0]?.value[1]);
      if (
        alert !== undefined &&
        seconds(alert.activeAt) > after &&
        recorded === Math.floor(seconds(alert.activeAt))
      )
        return alert;
      if (Date.now() > deadline)
        throw new Error(`AlwaysOn not live after ${after}: ${JSON.stringify(alerts)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Prometheus's raw samples of a selector over the last `range` (an instant query of a range vector). */
  async function raw(selector: string, range = "7h"): Promise<RawSeries[]> {
    const { result } = await prometheus.api<{ result: RawSeries[] }>("query", {
      query: `${selector}[${range}]`,
    });
    return result;
  }

  const modes: Array<[string, () => { call: () => ToolCall; args: Json }]> = [
    [
      "a plain Prometheus",
      () => ({
        call: () => makeToolCall({ prometheusUrl: prometheus.url, prometheusAuth: "none" }),
        args: {},
      }),
    ],
    [
      "AMP through the SigV4 proxy",
      () => ({
        call: () => makeToolCall({ defaultRegion: REGION, ampEndpoint: amp.url }),
        args: { workspace_id: WS },
      }),
    ],
  ];

  describe.each(modes)("%s", (_mode, setup) => {
    const call = () => setup().call();
    const args = (more: Json = {}) => ({ ...setup().args, ...more });

    it("GetAlertHistory: the stored episode, its start from ALERTS_FOR_STATE, the rest within a step of the raw samples", async () => {
      const value = await run(GetAlertHistory, args({ start: "now-6h" }), call());
      const step = stepSeconds(String(value.resolution));
      expect(step).toBeGreaterThan(0);
      const alerts = value.alerts as Json[];
      // AlwaysOn fires now: the most recent activity comes first.
      expect(alerts.map((a) => (a.labels as Json).alertname)).toEqual(["AlwaysOn", "EarlierOne"]);
      const earlier = alerts[1] as Json;
      expect(earlier.labels).toStrictEqual({ alertname: "EarlierOne", severity: "page" });
      const [forState] = await raw('ALERTS_FOR_STATE{alertname="EarlierOne"}');
      const activeAt = Math.min(...(forState as RawSeries).values.map(([, v]) => Number(v)));
      const samples = await raw('ALERTS{alertname="EarlierOne"}');
      const times = (state: string) =>
        samples.filter((s) => s.metric.alertstate === state).flatMap((s) => s.values.map(([t]) => t));
      const firing = times("firing");
      const all = [...times("pending"), ...firing];
      // One episode: the 3-minute gap and the drop back to pending are under the 1h tolerance.
      const [episode, ...others] = earlier.episodes as Json[];
      expect(others).toEqual([]);
      expect(episode?.pending_from).toBe(rfc3339(activeAt));
      const firingFrom = seconds(episode?.firing_from);
      expect(firingFrom - Math.min(...firing)).toBeGreaterThanOrEqual(0);
      expect(firingFrom - Math.min(...firing)).toBeLessThanOrEqual(step);
      const to = seconds(episode?.to);
      expect(to - Math.max(...all)).toBeGreaterThanOrEqual(0);
      expect(to - Math.max(...all)).toBeLessThanOrEqual(step);
      expect(earlier.summary).toMatch(/^1 episode, 1 firing \(\d+m in all\)$/);
    });

    it("GetAlertHistory: the live alert's episode began in its stored record, before Prometheus started, and goes on", async () => {
      const value = await run(GetAlertHistory, args({ start: "now-6h", match: "AlwaysOn" }), call());
      const [always, ...others] = value.alerts as Json[];
      expect(others).toEqual([]);
      const [forState] = await raw('ALERTS_FOR_STATE{alertname="AlwaysOn"}');
      const onset = Math.min(...(forState as RawSeries).values.map(([, v]) => Number(v)));
      expect(onset).toBe(ALWAYS_FROM);
      // No `for`: firing from its onset, never pending; no `to`: it goes on.
      expect(always?.episodes).toStrictEqual([{ firing_from: rfc3339(onset) }]);
      expect(String(always?.summary)).toMatch(/^1 episode, 1 firing \(.+ in all\); firing at end$/);
      const none = await toolResult(GetAlertHistory, args({ start: "now-6h", match: "NoSuchAlert" }), call());
      expect(none.structuredContent).toMatchObject({ alerts: [] });
      expect((none.content[1] as { text: string }).text).toMatch(
        /^No alert was pending or firing.*Widen start/,
      );
    });

    it("ListAlerts: onset from the stored record where activeAt is the start of rule evaluation", async () => {
      const { alerts } = await prometheus.api<{ alerts: Json[] }>("alerts", {});
      const value = await run(ListAlerts, args(), call());
      const listed = (value.alerts as Json[]).find((a) => (a.labels as Json).alertname === "AlwaysOn");
      const reported = alerts.find((a) => (a.labels as Json).alertname === "AlwaysOn") as Json;
      expect(listed?.activeAt).toBe(reported.activeAt);
      expect(seconds(reported.activeAt)).toBeGreaterThan(ALWAYS_FROM + 3600);
      expect(listed?.onset).toBe(rfc3339(ALWAYS_FROM));
      expect(listed?.onset_note).toMatch(/activeAt is when rule evaluation last restarted/);
      // No note on onsets (this Prometheus has no Alertmanager configured: that note is alertStatus.test.ts's).
      expect(value.note ?? "").not.toMatch(/Onsets unavailable/);
    });
  });

  it("a restart moves activeAt, not the onset nor the episode's start", async () => {
    const before = await liveAlert();
    await prometheus.restart();
    const after = await liveAlert(seconds(before.activeAt));
    expect(seconds(after.activeAt)).toBeGreaterThan(seconds(before.activeAt));
    const call = makeToolCall({ prometheusUrl: prometheus.url, prometheusAuth: "none" });
    const listed = ((await run(ListAlerts, { match: "AlwaysOn" }, call)).alerts as Json[])[0];
    expect(listed?.activeAt).toBe(after.activeAt);
    // ALERTS_FOR_STATE now holds both: the stored onset, and the new activeAt since the restart.
    const [forState] = await raw('ALERTS_FOR_STATE{alertname="AlwaysOn"}');
    const values = new Set((forState as RawSeries).values.map(([, v]) => Number(v)));
    expect(values.has(Math.floor(seconds(after.activeAt)))).toBe(true);
    expect(listed?.onset).toBe(rfc3339(Math.min(...values)));
    expect(listed?.onset).toBe(rfc3339(ALWAYS_FROM));
    const history = await run(GetAlertHistory, { start: "now-6h", match: "AlwaysOn" }, call);
    expect((history.alerts as Json[])[0]?.episodes).toStrictEqual([{ firing_from: rfc3339(ALWAYS_FROM) }]);
  }, 60_000);

  it("ListAlerts answers without onsets, saying why, when the history cannot be read (no permission)", async () => {
    // As AMP answers a role without aps:QueryMetrics: the history's query is refused, the alerts are not
    // (Prometheus's own list, as it reports it now).
    const { alerts } = await prometheus.api<{ alerts: Json[] }>("alerts", {});
    const server = await startFaultServer([
      { status: 403, body: errorBody("forbidden", "not authorized to perform aps:QueryMetrics") },
      { status: 200, body: successBody({ alerts }) },
    ]);
    try {
      const call = makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" });
      const value = await run(ListAlerts, {}, call);
      expect(server.requests.map((url) => new URL(url, server.url).pathname)).toEqual([
        "/api/v1/query_range",
        "/api/v1/alerts",
      ]);
      expect(value.note).toMatch(/^Onsets unavailable: reading ALERTS history failed \(.*403.*\)\. /);
      const listed = value.alerts as Json[];
      expect(listed).toHaveLength(alerts.length);
      for (const alert of listed) expect(alert.onset).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
