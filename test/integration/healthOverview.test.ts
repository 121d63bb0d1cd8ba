import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetHealthOverview } from "../../tools/index.js";
import type { ToolCall } from "../../tools/types.js";
import { type AlertingStack, alertmanagerAvailable, INHIBITION, RULES } from "../support/alerting.js";
import { type AlertingAmp, startAlertingAmp } from "../support/alertingAmp.js";
import type { FakeAmp } from "../support/fakeAmp.js";
import { prometheusAvailable } from "../support/prometheus.js";
import { maxRealTokens } from "../support/tokenizers.js";
import { makeToolCall, toolResult } from "../support/toolCall.js";

/**
 * GetHealthOverview (issue 37) against the alerting stack: a real Prometheus (alerts firing and pending,
 * a failing recording rule, alerting rules that cannot fire) and a real Alertmanager (a silence on a firing
 * alert, silences matching nothing, an inhibition). Every part is checked against what Prometheus and
 * Alertmanager report, asked directly here; plain Prometheus with ALERTMANAGER_URL, and AMP through the
 * SigV4-checking proxy (no targets API, no runtime info: said in not_seen).
 */

const REGION = "us-west-2";
const WS = "ws-37373737-aaaa-bbbb-cccc-00000000000e";

type Json = Record<string, unknown>;
type Labels = Record<string, string>;

interface PromAlert {
  labels: Labels;
  state: string;
  activeAt: string;
  value: string;
}
interface PromRule {
  name: string;
  type: string;
  health: string;
  lastError?: string;
}
interface AmAlert {
  labels: Labels;
  status: { silencedBy: string[]; inhibitedBy: string[] };
}
interface AmSilence {
  id: string;
  status: { state: string };
}

async function overview(args: Json, call: ToolCall): Promise<{ value: Json; text: string }> {
  const result = await toolResult(GetHealthOverview, args, call);
  if (result.isError) throw new Error(`GetHealthOverview failed: ${JSON.stringify(result.content)}`);
  const text = (result.content[0] as { text: string }).text;
  return { value: result.structuredContent as Json, text };
}

const groupNamed = (value: Json, alertname: string) =>
  (value.alerts as Json[]).find((group) => group.alertname === alertname);

describe.skipIf(!prometheusAvailable() || !alertmanagerAvailable())(
  "GetHealthOverview against a real Prometheus and Alertmanager",
  () => {
    let stack: AlertingStack;
    let amp: FakeAmp;
    let running: AlertingAmp | undefined;

    beforeAll(async () => {
      running = await startAlertingAmp(REGION, WS);
      ({ stack, amp } = running);
    }, 120_000);

    afterAll(async () => {
      await running?.close();
    });

    /** What Prometheus and Alertmanager report, asked directly. */
    async function upstream() {
      const [{ alerts }, { groups }, amAlerts, silences] = await Promise.all([
        stack.prometheus.api<{ alerts: PromAlert[] }>("alerts", {}),
        stack.prometheus.api<{ groups: Array<{ rules: PromRule[] }> }>("rules", {}),
        stack.alertmanager.api<AmAlert[]>("alerts?active=true&silenced=true&inhibited=true&unprocessed=true"),
        stack.alertmanager.api<AmSilence[]>("silences"),
      ]);
      return { alerts, rules: groups.flatMap((group) => group.rules), amAlerts, silences };
    }

    const plainCall = () =>
      makeToolCall({
        prometheusUrl: stack.prometheus.url,
        prometheusAuth: "none",
        alertmanagerUrl: stack.alertmanager.url,
      });

    describe.each([
      ["a plain Prometheus with ALERTMANAGER_URL", () => ({ call: plainCall(), args: {} })],
      [
        "AMP through the SigV4 proxy",
        () => ({
          call: makeToolCall({ defaultRegion: REGION, ampEndpoint: amp.url }),
          args: { workspace_id: WS },
        }),
      ],
    ] as const)("%s", (mode, setup) => {
      const isAmp = mode.startsWith("AMP");

      it("groups every alert Prometheus reports by alertname and state, firing first, with onset, value and Alertmanager's status", async () => {
        const { call, args } = setup();
        const { value } = await overview(args, call);
        const { alerts } = await upstream();

        const expected = new Map<string, PromAlert[]>();
        for (const alert of alerts) {
          const key = `${alert.labels.alertname}/${alert.state}`;
          expected.set(key, [...(expected.get(key) ?? []), alert]);
        }
        const groups = value.alerts as Json[];
        expect(new Map(groups.map((group) => [`${group.alertname}/${group.state}`, group.count]))).toEqual(
          new Map([...expected].map(([key, list]) => [key, list.length])),
        );
        const states = groups.map((group) => group.state);
        expect(states.lastIndexOf("firing")).toBeLessThan(states.indexOf("pending"));
        for (const group of groups) {
          const members = expected.get(`${group.alertname}/${group.state}`) as PromAlert[];
          // A fresh stack: no stored history before activeAt, so the onset is the earliest activeAt.
          const earliest = members.map((alert) => alert.activeAt).sort()[0];
          expect(group.onset, String(group.alertname)).toBe(earliest);
          if (members.length === 1) expect(group.value).toBe(members[0]?.value);
        }

        expect(groupNamed(value, RULES.targetUp.name)).toMatchObject({
          alertmanager: "silenced",
          silenced_by: [{ id: stack.alertmanager.silences.active }],
        });
        expect(groupNamed(value, INHIBITION.target)).toMatchObject({
          alertmanager: "inhibited",
          inhibited_by: [{ alertname: INHIBITION.source }],
        });
        expect(groupNamed(value, RULES.upForTwoSeconds.name)).toMatchObject({ alertmanager: "active" });
        const pending = groupNamed(value, RULES.upForAnHour.name);
        expect(pending).toMatchObject({ state: "pending", severity: RULES.upForAnHour.labels.severity });
        expect(pending).not.toHaveProperty("alertmanager");
        expect(groupNamed(value, RULES.targetUp.name)?.summary).toBe(
          `Target ${stack.prometheus.instance} is up`,
        );
      });

      it("lists the active silences that match no alert: those no alert of Alertmanager's names in silencedBy", async () => {
        const { call, args } = setup();
        const { value } = await overview(args, call);
        const { amAlerts, silences } = await upstream();
        const muting = new Set(amAlerts.flatMap((alert) => alert.status.silencedBy));
        const idle = silences
          .filter((silence) => silence.status.state === "active" && !muting.has(silence.id))
          .map((silence) => silence.id)
          .sort();
        expect(idle).toContain(stack.alertmanager.silences.regex);
        expect(idle).not.toContain(stack.alertmanager.silences.active);
        const listed = (value.silences_matching_no_alert as Json[]).map((silence) => silence.id);
        expect([...listed].sort()).toEqual(idle);
        const active = silences.filter((silence) => silence.status.state === "active").length;
        expect(value.summary).toContain(`${active} active silences (${idle.length} matching no alert)`);
      });

      it("gives the failing rules by error, as Prometheus reports them, and the alerting rules that cannot fire", async () => {
        const { call, args } = setup();
        const { value } = await overview(args, call);
        const { rules } = await upstream();
        const failing = rules.filter((rule) => rule.health === "err");
        expect(failing.map((rule) => rule.name)).toContain(RULES.broken.name);
        const byError = new Map<string, string[]>();
        for (const rule of failing)
          byError.set(String(rule.lastError), [...(byError.get(String(rule.lastError)) ?? []), rule.name]);
        const shown = value.failing_rules as Array<{
          error: string;
          means?: string;
          rules: string[];
          blocks?: string[];
        }>;
        expect(new Map(shown.map((group) => [group.error, [...group.rules].sort()]))).toEqual(
          new Map([...byError].map(([error, names]) => [error, [...names].sort()])),
        );
        const broken = shown.find((group) => group.rules.includes(RULES.broken.name));
        expect(broken?.means).toMatch(/Nothing is recorded/);
        expect(broken?.blocks).toEqual([RULES.readsBroken.name]);

        const cannot = value.cannot_fire as Array<{ name: string; why: string }>;
        expect(cannot.map((rule) => rule.name).sort()).toEqual(
          [RULES.readsBroken.name, RULES.readsNoSeries.name].sort(),
        );
        expect(cannot.find((rule) => rule.name === RULES.readsNoSeries.name)?.why).toContain(
          RULES.noSeries.name,
        );
        expect(value.summary).toContain(`${failing.length} rule${failing.length === 1 ? "" : "s"} failing`);
      });

      it("says what it could not see: targets and data range where the server has no API for them", async () => {
        const { call, args } = setup();
        const { value } = await overview(args, call);
        if (isAmp) {
          expect(value).not.toHaveProperty("targets_down");
          expect(value).not.toHaveProperty("data");
          expect(value.not_seen).toMatchObject({
            targets: expect.stringContaining("no targets API"),
            data: expect.stringContaining("does not report"),
          });
          expect(value.summary).toContain("not seen: targets, data");
          return;
        }
        const [{ activeTargets }, runtime, lowest] = await Promise.all([
          stack.prometheus.api<{ activeTargets: Array<{ health: string }> }>("targets", { state: "active" }),
          stack.prometheus.api<{ storageRetention: string; startTime: string }>("status/runtimeinfo", {}),
          stack.prometheus.api<{ result: Array<{ value: [number, string] }> }>("query", {
            query: "min(prometheus_tsdb_lowest_timestamp_seconds)",
          }),
        ]);
        const notUp = activeTargets.filter((target) => target.health !== "up").length;
        expect(value.summary).toContain(
          `${notUp} of ${activeTargets.length} target${activeTargets.length === 1 ? "" : "s"} not up`,
        );
        expect(value.not_seen ?? {}).toEqual({});
        const seconds = Number(lowest.result[0]?.value[1]);
        expect(value.data).toEqual({
          retention: runtime.storageRetention,
          started_at: runtime.startTime,
          oldest_sample: new Date(seconds * 1000).toISOString(),
        });
      });
    });

    it("answers without an Alertmanager, saying so; the alerts are still grouped", async () => {
      const call = makeToolCall({ prometheusUrl: stack.prometheus.url, prometheusAuth: "none" });
      const { value } = await overview({}, call);
      expect(value.not_seen).toMatchObject({ alertmanager: expect.stringContaining("ALERTMANAGER_URL") });
      expect(groupNamed(value, RULES.targetUp.name)).toMatchObject({ state: "firing" });
      expect(groupNamed(value, RULES.targetUp.name)).not.toHaveProperty("alertmanager");
      expect(value).not.toHaveProperty("silences_matching_no_alert");
    });

    it("fits a small budget by cutting, truncated first, the most severe kept", async () => {
      const whole = await overview({}, plainCall());
      const wholeTokens = maxRealTokens(whole.text);
      const call = makeToolCall(
        {
          prometheusUrl: stack.prometheus.url,
          prometheusAuth: "none",
          alertmanagerUrl: stack.alertmanager.url,
        },
        { budget: { tokens: Math.floor(wholeTokens / 2), bytes: 1_000_000 } },
      );
      const { value, text } = await overview({}, call);
      expect(Object.keys(value)[0]).toBe("truncated");
      expect((value.truncated as Json).note).toMatch(/^Cut to fit this reply: /);
      expect(maxRealTokens(text)).toBeLessThanOrEqual(Math.floor(wholeTokens / 2));
      const kept = value.alerts as Json[] | undefined;
      expect(kept?.[0]?.alertname).toBe((whole.value.alerts as Json[])[0]?.alertname);
    });
  },
);
