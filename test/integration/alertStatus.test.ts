import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ListAlerts } from "../../tools/index.js";
import type { ToolCall, ToolSettings } from "../../tools/types.js";
import {
  type AlertingStack,
  alertmanagerAvailable,
  INHIBITION,
  RULES,
  SILENCES,
  startAlertmanager,
} from "../support/alerting.js";
import { type AlertingAmp, startAlertingAmp } from "../support/alertingAmp.js";
import { type AuthProxy, startAuthProxy } from "../support/authProxy.js";
import type { FakeAmp } from "../support/fakeAmp.js";
import { refusedUrl } from "../support/net.js";
import { prometheusAvailable } from "../support/prometheus.js";
import type { SigV4Proxy } from "../support/sigv4Proxy.js";
import { makeToolCall, toolResult } from "../support/toolCall.js";

/**
 * ListAlerts joins each firing alert to what a real Alertmanager does with it (issue 37): the stack's
 * TargetUp is silenced, UpNotice inhibited by UpForTwoSeconds, which is active; UpForAnHour is pending
 * (never sent). Every field is checked against Alertmanager's own API, asked here; plain Prometheus with
 * ALERTMANAGER_URL and AMP through the SigV4-checking proxy. Without an Alertmanager, or with one that
 * refuses or cannot be reached, ListAlerts still answers, and its note says why the status is unknown.
 */

const REGION = "us-west-2";
const WS = "ws-37373737-aaaa-bbbb-cccc-000000000037";

type Json = Record<string, unknown>;
type Labels = Record<string, string>;

interface AmAlert {
  labels: Labels;
  fingerprint: string;
  status: { state: string; silencedBy: string[]; inhibitedBy: string[] };
}
interface AmSilence {
  id: string;
  comment: string;
  createdBy: string;
  endsAt: string;
}
interface PromAlert {
  labels: Labels;
  annotations: Labels;
  state: string;
  activeAt: string;
  value: string;
}

async function listAlerts(args: Json, call: ToolCall): Promise<Json> {
  const result = await toolResult(ListAlerts, args, call);
  if (result.isError) throw new Error(`ListAlerts failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Json;
}

const sameLabels = (a: Labels, b: Labels) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([n, v]) => b[n] === v);

/**
 * What Alertmanager says of a Prometheus alert, read off its API: the stack's Prometheus has no external
 * labels, so Alertmanager's alert has exactly Prometheus's labels.
 */
function expectedStatus(alert: PromAlert, amAlerts: AmAlert[], silences: AmSilence[]): Json {
  if (alert.state !== "firing") return {};
  const held = amAlerts.find((am) => sameLabels(am.labels, alert.labels));
  if (held === undefined) return { alertmanager: "not received" };
  const silencedBy = held.status.silencedBy.map((id) => {
    const silence = silences.find((s) => s.id === id) as AmSilence;
    return { id, comment: silence.comment, created_by: silence.createdBy, ends_at: silence.endsAt };
  });
  const inhibitedBy = held.status.inhibitedBy.map((fingerprint) => {
    const source = amAlerts.find((am) => am.fingerprint === fingerprint) as AmAlert;
    const { alertname, ...rest } = source.labels;
    const own = Object.entries(rest).filter(([name, value]) => held.labels[name] !== value);
    return own.length > 0 ? { alertname, labels: Object.fromEntries(own) } : { alertname };
  });
  return {
    alertmanager: silencedBy.length > 0 ? "silenced" : inhibitedBy.length > 0 ? "inhibited" : "active",
    ...(silencedBy.length > 0 ? { silenced_by: silencedBy } : {}),
    ...(inhibitedBy.length > 0 ? { inhibited_by: inhibitedBy } : {}),
  };
}

function expectedAlert(alert: PromAlert, amAlerts: AmAlert[], silences: AmSilence[]): Json {
  return {
    labels: alert.labels,
    ...(Object.keys(alert.annotations).length > 0 ? { annotations: alert.annotations } : {}),
    state: alert.state,
    activeAt: alert.activeAt,
    // A fresh stack: no stored record before activeAt (alertHistory.test.ts has one that is).
    onset: alert.activeAt,
    value: alert.value,
    ...expectedStatus(alert, amAlerts, silences),
  };
}

const byAlertname = (alerts: unknown) =>
  [...(alerts as Json[])].sort((a, b) =>
    String((a.labels as Labels).alertname).localeCompare(String((b.labels as Labels).alertname)),
  );
const named = (value: Json, alertname: string) =>
  (value.alerts as Json[]).find((alert) => (alert.labels as Labels).alertname === alertname);

describe.skipIf(!prometheusAvailable() || !alertmanagerAvailable())(
  "ListAlerts with Alertmanager's status, against a real Prometheus and Alertmanager",
  () => {
    let stack: AlertingStack;
    let proxy: SigV4Proxy;
    let amp: FakeAmp;
    let running: AlertingAmp | undefined;

    beforeAll(async () => {
      running = await startAlertingAmp(REGION, WS);
      ({ stack, proxy, amp } = running);
    }, 120_000);

    afterAll(async () => {
      await running?.close();
    });

    beforeEach(() => proxy.reset());

    /** Prometheus's alerts, Alertmanager's (every state) and its silences, asked directly. */
    async function upstream() {
      const [{ alerts }, amAlerts, silences] = await Promise.all([
        stack.prometheus.api<{ alerts: PromAlert[] }>("alerts", {}),
        stack.alertmanager.api<AmAlert[]>("alerts?active=true&silenced=true&inhibited=true&unprocessed=true"),
        stack.alertmanager.api<AmSilence[]>("silences"),
      ]);
      return { alerts, amAlerts, silences };
    }

    const plain = (overrides: Partial<ToolSettings> = {}) =>
      makeToolCall({
        prometheusUrl: stack.prometheus.url,
        prometheusAuth: "none",
        alertmanagerUrl: stack.alertmanager.url,
        ...overrides,
      });

    describe.each([
      ["a plain Prometheus with ALERTMANAGER_URL", () => ({ call: plain(), args: {} })],
      [
        "AMP through the SigV4 proxy (Alertmanager under the workspace)",
        () => ({
          call: makeToolCall({ defaultRegion: REGION, ampEndpoint: amp.url }),
          args: { workspace_id: WS },
        }),
      ],
    ] as const)("%s", (mode, setup) => {
      const isAmp = mode.startsWith("AMP");

      it("each firing alert has Alertmanager's status: silenced (by whom, why, until when), inhibited (by which alert), active; a pending one none", async () => {
        const { call, args } = setup();
        const value = await listAlerts(args, call);
        const { alerts, amAlerts, silences } = await upstream();

        expect(byAlertname(value.alerts)).toStrictEqual(
          byAlertname(alerts.map((alert) => expectedAlert(alert, amAlerts, silences))),
        );
        // The stack as it is meant to be, in Alertmanager's own words.
        const activeSilence = silences.find((s) => s.id === stack.alertmanager.silences.active) as AmSilence;
        expect(named(value, RULES.targetUp.name)).toMatchObject({
          alertmanager: "silenced",
          silenced_by: [
            {
              id: stack.alertmanager.silences.active,
              comment: SILENCES.active.comment,
              created_by: SILENCES.active.createdBy,
              ends_at: activeSilence.endsAt,
            },
          ],
        });
        expect(named(value, INHIBITION.target)).toMatchObject({
          alertmanager: "inhibited",
          inhibited_by: [{ alertname: INHIBITION.source, labels: { severity: "warning" } }],
        });
        expect(named(value, RULES.upForTwoSeconds.name)).toMatchObject({ alertmanager: "active" });
        expect(named(value, RULES.upForTwoSeconds.name)).not.toHaveProperty("silenced_by");
        const pending = named(value, RULES.upForAnHour.name);
        expect(pending?.state).toBe("pending");
        expect(pending).not.toHaveProperty("alertmanager");

        const firing = alerts.filter((alert) => alert.state === "firing").length;
        const silenced = amAlerts.filter((am) => am.status.silencedBy.length > 0).length;
        const inhibited = amAlerts.filter(
          (am) => am.status.silencedBy.length === 0 && am.status.inhibitedBy.length > 0,
        ).length;
        expect([firing, silenced, inhibited]).toEqual([3, 1, 1]);
        expect(value.note).toBe(
          `Alertmanager silences ${silenced} and inhibits ${inhibited} of the ${firing} firing alerts: those notify no one; silenced_by and inhibited_by say why.`,
        );
        expect(Object.keys(value)).toEqual(["note", "alerts"]);

        if (isAmp) {
          const paths = proxy.requests.map(
            (request) => `${request.accepted} ${request.rawUrl.split("?")[0]}`,
          );
          // Signed for aps (the proxy accepts no other service), on AMP's Alertmanager paths.
          expect(paths.sort()).toEqual(
            [
              `true /workspaces/${WS}/alertmanager/api/v2/alerts`,
              `true /workspaces/${WS}/alertmanager/api/v2/silences`,
              `true /workspaces/${WS}/api/v1/alerts`,
              // The stored alert history, for the onsets (alertHistory.test.ts).
              `true /workspaces/${WS}/api/v1/query_range`,
            ].sort(),
          );
          const alertsAsked = proxy.requests.find((request) => request.rawUrl.includes("/api/v2/alerts"));
          const query = new URLSearchParams(alertsAsked?.rawUrl.split("?")[1]);
          for (const state of ["active", "silenced", "inhibited", "unprocessed"])
            expect(query.get(state), state).toBe("true");
        }
      });

      it("match and state narrow the list, not the note's count of all firing alerts", async () => {
        const { call, args } = setup();
        const value = await listAlerts({ ...args, match: RULES.targetUp.name }, call);
        expect((value.alerts as Json[]).map((alert) => (alert.labels as Labels).alertname)).toEqual([
          RULES.targetUp.name,
        ]);
        expect(value.note).toMatch(
          /^Alertmanager silences 1 and inhibits 1 of the 3 firing alerts \(counted whatever state and match\): /,
        );
        // A cut list: truncated first, then the note.
        const cut = await listAlerts({ ...args, limit: 1 }, call);
        expect(Object.keys(cut)).toEqual(["truncated", "note", "alerts"]);
        expect(cut.note).toMatch(/of the 3 firing alerts: /);
        const pending = await listAlerts({ ...args, state: "pending" }, call);
        expect(pending.alerts).toHaveLength(1);
        expect(pending.note).toMatch(/of the 3 firing alerts \(counted whatever state and match\)/);
      });
    });

    it("an Alertmanager that did not receive Prometheus's alerts: each firing one is not received, and no note", async () => {
      const other = await startAlertmanager();
      try {
        const value = await listAlerts({}, plain({ alertmanagerUrl: other.url }));
        const { alerts } = await upstream();
        expect(byAlertname(value.alerts)).toStrictEqual(
          byAlertname(alerts.map((alert) => expectedAlert(alert, [], []))),
        );
        const firing = (value.alerts as Json[]).filter((alert) => alert.state === "firing");
        expect(firing.length).toBe(3);
        for (const alert of firing) expect(alert.alertmanager).toBe("not received");
        expect(value).not.toHaveProperty("note");
      } finally {
        await other.close();
      }
    });

    describe("Alertmanager's status unknown: ListAlerts still answers, with a note saying why", () => {
      let refusing: AuthProxy;
      beforeAll(async () => {
        refusing = await startAuthProxy(stack.alertmanager.url, {
          tenant: { header: "X-Scope-OrgID", allowed: ["team-a"] },
        });
      });
      afterAll(() => refusing?.close());

      async function expectUnknown(call: ToolCall, reason: RegExp): Promise<void> {
        const value = await listAlerts({}, call);
        const { alerts } = await upstream();
        // Prometheus's alerts as they are, without any Alertmanager field.
        expect(byAlertname(value.alerts)).toStrictEqual(
          byAlertname(
            alerts.map((alert) => {
              const { alertmanager: _, ...rest } = expectedAlert(alert, [], []);
              return rest;
            }),
          ),
        );
        expect(String(value.note)).toMatch(/^Alertmanager's status of the firing alerts is unknown: /);
        expect(String(value.note)).toMatch(reason);
        expect(Object.keys(value)).toEqual(["note", "alerts"]);
      }

      it("no Alertmanager configured (no ALERTMANAGER_URL)", async () => {
        await expectUnknown(
          plain({ alertmanagerUrl: undefined }),
          /unknown: no Alertmanager is configured \(ALERTMANAGER_URL\)\.$/,
        );
      });

      it("an Alertmanager that refuses (HTTP 403)", async () => {
        await expectUnknown(
          plain({ alertmanagerUrl: refusing.url, prometheusHeaders: { "X-Scope-OrgID": "team-b" } }),
          /Alertmanager refused the request \(HTTP 403/,
        );
        expect(refusing.refused[403]).toBeGreaterThanOrEqual(2);
      });

      it("an Alertmanager that cannot be reached", async () => {
        const url = await refusedUrl();
        await expectUnknown(
          plain({ alertmanagerUrl: url }),
          new RegExp(`unknown: Could not reach Alertmanager at ${url}/api/v2/(alerts|silences)`),
        );
      });
    });
  },
);
