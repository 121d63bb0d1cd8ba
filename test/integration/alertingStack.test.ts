import { createSignedFetcher } from "aws-sigv4-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explainRuleError } from "../../src/results/ruleErrors.js";
import {
  type AlertingStack,
  alertmanagerAvailable,
  INHIBITION,
  RULES,
  type RuleSpec,
  reportedGroups,
  SILENCES,
  type SilenceKey,
  startAlertingStack,
} from "../support/alerting.js";
import { prometheusAvailable } from "../support/prometheus.js";
import { type SigV4Proxy, startSigV4Proxy } from "../support/sigv4Proxy.js";
import { TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY } from "../support/sigv4Verify.js";

const REGION = "us-east-1";
const WS = "ws-test";

interface ApiRule {
  name: string;
  query: string;
  type: string;
  health: string;
  lastError?: string;
  state?: string;
  duration?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface ApiAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
  value: string;
}
interface AmAlert {
  labels: Record<string, string>;
  fingerprint: string;
  status: { state: string; silencedBy: string[]; inhibitedBy: string[] };
}
interface AmSilence {
  id: string;
  status: { state: string };
  matchers: unknown[];
  createdBy: string;
  comment: string;
}

const byId = (silences: AmSilence[]) => [...silences].sort((a, b) => a.id.localeCompare(b.id));

describe.skipIf(!alertmanagerAvailable() || !prometheusAvailable())(
  "alerting stack: real Prometheus rules and alerts, real Alertmanager silences",
  () => {
    let stack: AlertingStack;
    let proxy: SigV4Proxy;

    beforeAll(async () => {
      stack = await startAlertingStack();
      proxy = await startSigV4Proxy({
        target: stack.prometheus.url,
        alertmanagerTarget: stack.alertmanager.url,
        region: REGION,
      });
    }, 60_000);

    afterAll(async () => {
      await proxy?.close();
      await stack?.close();
    });

    it("evaluates every rule of RULES, groups by name and rules in file order, the broken one with an error", async () => {
      const { groups } = await stack.prometheus.api<{ groups: Array<{ name: string; rules: ApiRule[] }> }>(
        "rules",
        {},
      );
      expect(groups.map((group) => group.name)).toEqual(reportedGroups().map((group) => group.name));
      for (const [index, group] of groups.entries()) {
        const specs: readonly RuleSpec[] = reportedGroups()[index]?.rules ?? [];
        expect(group.rules.map((rule) => rule.name)).toEqual(specs.map((spec) => spec.name));
        for (const [i, rule] of group.rules.entries()) {
          const spec = specs[i] as RuleSpec;
          expect(rule).toMatchObject({ type: spec.type, query: spec.expr });
          if (spec.type === "alerting") {
            expect(rule).toMatchObject({
              health: "ok",
              state: spec.state,
              duration: spec.forSeconds,
              labels: spec.labels,
              annotations: spec.annotations,
            });
          } else {
            expect(rule.health).toBe(spec.health);
            if (spec.lastError === undefined) expect(rule.lastError ?? "").toBe("");
            else expect(rule.lastError).toContain(spec.lastError);
          }
        }
      }
    });

    it("Prometheus's own texts for the common PromQL evaluation errors are ones ListRules explains", async () => {
      /** The error a query gets, as a rule evaluating it would report it (`lastError`). */
      const errorOf = async (params: Record<string, string>) => {
        const response = await fetch(`${stack.prometheus.url}/api/v1/query?${new URLSearchParams(params)}`);
        const body = (await response.json()) as { status: string; error?: string };
        expect(body.status, JSON.stringify(params)).toBe("error");
        return String(body.error);
      };
      // Two series per job on each side (up and scrape_samples_scraped of the one target).
      const both = '{__name__=~"up|scrape_samples_scraped"}';
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ query: `${both} * on(job) ${both}` }, /^A join .* several series on both sides/],
        [{ query: `${both} * on(job) up` }, /^A join matched several series on one side/],
        [{ query: RULES.broken.expr }, /^Two results had the same labels/],
        [
          { query: "count_over_time(up[1h])", timeout: "0.000001" },
          /^The evaluation ran past the query timeout/,
        ],
      ];
      for (const [params, means] of cases) {
        const error = await errorOf(params);
        expect(explainRuleError(error, "recording") ?? `unexplained: ${error}`, error).toMatch(means);
      }
      // The broken rule's own lastError is the same text.
      expect(await errorOf({ query: RULES.broken.expr })).toBe(RULES.broken.lastError);
    });

    it("has TargetUp and UpForTwoSeconds firing, UpForAnHour pending, TargetDown inactive", async () => {
      const { alerts } = await stack.prometheus.api<{ alerts: ApiAlert[] }>("alerts", {});
      const state = (name: string) => alerts.find((alert) => alert.labels.alertname === name)?.state;
      expect(state("TargetUp")).toBe("firing");
      expect(state("UpForTwoSeconds")).toBe("firing");
      expect(state("UpForAnHour")).toBe("pending");
      expect(state("TargetDown")).toBeUndefined();
      const targetUp = alerts.find((alert) => alert.labels.alertname === "TargetUp");
      expect(targetUp?.labels).toEqual({
        alertname: "TargetUp",
        instance: stack.prometheus.instance,
        job: "prometheus",
        severity: "info",
      });
      // Annotations are expanded templates.
      expect(targetUp?.annotations.summary).toBe(`Target ${stack.prometheus.instance} is up`);
      expect(targetUp?.annotations.description).toBe("up is 1 for job prometheus.");
    });

    it("has the firing alerts in Alertmanager, TargetUp suppressed by the active silence", async () => {
      const alerts = await stack.alertmanager.api<AmAlert[]>("alerts");
      const targetUp = alerts.find((alert) => alert.labels.alertname === "TargetUp");
      expect(targetUp?.status).toMatchObject({
        state: "suppressed",
        silencedBy: [stack.alertmanager.silences.active],
      });
      const upForTwo = alerts.find((alert) => alert.labels.alertname === "UpForTwoSeconds");
      expect(upForTwo?.status.state).toBe("active");
      expect(alerts.some((alert) => alert.labels.alertname === "UpForAnHour")).toBe(false);
    });

    it("has UpNotice suppressed by the inhibition rule, inhibited by UpForTwoSeconds of the same instance", async () => {
      const alerts = await stack.alertmanager.api<AmAlert[]>("alerts");
      const source = alerts.find((alert) => alert.labels.alertname === INHIBITION.source);
      const target = alerts.find((alert) => alert.labels.alertname === INHIBITION.target);
      expect(source?.labels.instance).toBe(stack.prometheus.instance);
      expect(target?.labels.instance).toBe(stack.prometheus.instance);
      expect(target?.status).toStrictEqual({
        state: "suppressed",
        silencedBy: [],
        inhibitedBy: [source?.fingerprint],
      });
    });

    it("has the five silences of SILENCES in their states", async () => {
      const silences = await stack.alertmanager.api<AmSilence[]>("silences");
      expect(silences).toHaveLength(5);
      for (const [key, spec] of Object.entries(SILENCES) as Array<
        [SilenceKey, (typeof SILENCES)[SilenceKey]]
      >) {
        const silence = silences.find((s) => s.id === stack.alertmanager.silences[key]);
        expect(silence, key).toMatchObject({
          status: { state: spec.state },
          createdBy: spec.createdBy,
          comment: spec.comment,
          matchers: spec.matchers,
        });
      }
    });

    it("serves Alertmanager and Prometheus through the SigV4 proxy's AMP layout", async () => {
      const signedFetch = createSignedFetcher({
        service: "aps",
        region: REGION,
        credentials: { accessKeyId: TEST_ACCESS_KEY_ID, secretAccessKey: TEST_SECRET_ACCESS_KEY },
      });
      const get = async <T>(path: string): Promise<T> => {
        const response = await signedFetch(`${proxy.workspaceUrl(WS)}${path}`, { method: "GET" });
        expect(response.status, `${path}: ${proxy.lastRejection}`).toBe(200);
        return (await response.json()) as T;
      };

      const silences = await get<AmSilence[]>("alertmanager/api/v2/silences");
      expect(byId(silences)).toEqual(byId(await stack.alertmanager.api<AmSilence[]>("silences")));

      const rules = await get<{
        status: string;
        data: { groups: Array<{ name: string; rules: ApiRule[] }> };
      }>("api/v1/rules");
      expect(rules.status).toBe("success");
      expect(rules.data.groups.map((group) => group.rules.map((rule) => rule.name))).toEqual(
        reportedGroups().map((group) => group.rules.map((rule) => rule.name)),
      );
      expect(proxy.requests.map((request) => request.accepted)).toEqual([true, true]);
    });
  },
);
