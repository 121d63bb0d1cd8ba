import { describe, expect, it } from "vitest";
import type { OverviewAlert, OverviewParts } from "../../src/results/overview.js";
import { groupAlerts, overviewResult } from "../../src/results/overview.js";
import { ON_CALL_PODS, ON_CALL_SERVICES } from "../support/onCallDataset.js";
import { maxRealTokens, realTokens } from "../support/tokenizers.js";

/**
 * GetHealthOverview's answer (src/results/overview.ts) for an incident on the on-call cluster of the
 * bench and the on-call tests (20 nodes, 200 pods, 8 HTTP services): the payments service failing, a
 * crash-looping pod, a node low on memory, a silenced alert, a failing recording rule that stops an alert.
 * The figure: one screen, under 2,000 tokens by both real tokenizers; an alert storm too.
 */

const AT = "2026-11-28T03:00:00.000Z";
const minutesAgo = (minutes: number) => new Date(Date.parse(AT) - minutes * 60_000).toISOString();

function alert(
  labels: Record<string, string>,
  state: "firing" | "pending",
  onsetMinutesAgo: number,
  extra: Partial<OverviewAlert> = {},
): OverviewAlert {
  return {
    labels,
    state,
    activeAt: minutesAgo(Math.min(onsetMinutesAgo, 20)),
    onset: minutesAgo(onsetMinutesAgo),
    value: "1e+00",
    ...(state === "firing" ? { status: { alertmanager: "active" as const } } : {}),
    ...extra,
  };
}

const payments = ON_CALL_SERVICES.find((service) => service.service === "payments");
const crashing = ON_CALL_PODS.find((pod) => pod.pod.includes("fraud-detector")) ?? ON_CALL_PODS[0];

/** The incident of the on-call pages: what an assistant saw after 18 calls, as one answer. */
function incident(): OverviewParts {
  const alerts: OverviewAlert[] = [
    alert({ alertname: "Watchdog", severity: "none" }, "firing", 90, {
      annotations: { summary: "An alert that should always be firing." },
      status: {
        alertmanager: "silenced",
        silenced_by: [
          {
            id: "5e1c0d2b",
            comment: "Dead man's switch, routed elsewhere",
            created_by: "platform",
            ends_at: "2027-01-01T00:00:00Z",
          },
        ],
      },
    }),
    alert(
      {
        alertname: "HighErrorRate",
        severity: "critical",
        service: String(payments?.service),
        namespace: "payments",
      },
      "firing",
      62,
      {
        annotations: {
          summary: "payments answers 21% 5xx (threshold 5%)",
          runbook_url: "https://runbooks.example/high-error-rate",
        },
        value: "2.1e-01",
      },
    ),
    alert(
      {
        alertname: "KubePodCrashLooping",
        severity: "warning",
        namespace: crashing?.namespace ?? "payments",
        pod: crashing?.pod ?? "p",
        container: "fraud-detector",
      },
      "firing",
      75,
      { annotations: { summary: "Pod is restarting 3 times / 10 minutes." }, value: "3e+00" },
    ),
    alert(
      {
        alertname: "NodeMemoryLow",
        severity: "critical",
        instance: "10.0.8.12:9100",
        node: "ip-10-0-8-12.ec2.internal",
      },
      "firing",
      48,
      {
        annotations: { summary: "Node ip-10-0-8-12.ec2.internal has 2% memory available." },
        value: "2.1e-02",
      },
    ),
    alert(
      { alertname: "LatencyHigh", severity: "warning", service: "checkout", namespace: "checkout" },
      "firing",
      35,
      { annotations: { summary: "checkout p99 latency is 4.1s (threshold 1s)" }, value: "4.1e+00" },
    ),
    ...["a1", "b2", "c3"].map((suffix, i) =>
      alert(
        {
          alertname: "KubePodNotReady",
          severity: "warning",
          namespace: "recommendations",
          pod: `model-server-7d9f-${suffix}`,
        },
        "pending",
        4 + i,
        { annotations: { summary: "Pod has been in a non-ready state." } },
      ),
    ),
  ];
  return {
    at: AT,
    alerts,
    alertsTotal: alerts.length,
    activeSilences: 2,
    idleSilences: [
      {
        id: "9a8b7c6d",
        matchers: ['alertname=~"Disk.*"', 'node="ip-10-0-3-7.ec2.internal"'],
        created_by: "capacity-bot",
        comment: "Disk replacement, ticket OPS-881",
        ends_at: "2026-11-28T06:00:00Z",
      },
    ],
    failing: [
      {
        error:
          'found duplicate series for the match group {service="payments"} on the right hand-side of the operation: [...];many-to-many matching not allowed: matching labels must be unique on one side',
        means:
          "A join matched more than one series on each side. Nothing is recorded, so alerts and dashboards that read this rule see no new data.",
        rules: ["service:error_ratio:rate5m"],
        blocks: ["ErrorBudgetBurn"],
      },
    ],
    cannotFire: [
      {
        name: "ErrorBudgetBurn",
        severity: "critical",
        why: "reads service:error_ratio:rate5m, whose evaluation fails: found duplicate series…",
      },
    ],
    targets: {
      notUp: [
        {
          job: "kubernetes-pods",
          instance: "10.1.4.17:8080",
          health: "down",
          last_error:
            'Get "http://10.1.4.17:8080/metrics": dial tcp 10.1.4.17:8080: connect: connection refused',
          last_scrape: minutesAgo(0.2),
        },
      ],
      notUpTotal: 1,
      total: 128,
    },
    data: { retention: "15d", oldest_sample: "2026-11-13T03:00:00.000Z", started_at: minutesAgo(20) },
    notSeen: {},
  };
}

async function fitted(parts: OverviewParts, tokens = 20_000) {
  const { value } = await overviewResult(parts).fit({ tokens, bytes: 1_000_000 }, {});
  return { value, text: JSON.stringify(value) };
}

describe("GetHealthOverview's answer", () => {
  it("an incident on the on-call cluster: one screen, under 2,000 tokens by both tokenizers, nothing cut", async () => {
    const { value, text } = await fitted(incident());
    const tokens = realTokens(text);
    expect(tokens.claude).toBeLessThan(2_000);
    expect(tokens.o200k).toBeLessThan(2_000);
    expect(value).not.toHaveProperty("truncated");
    expect(value.summary).toBe(
      "5 alerts firing (1 silenced or inhibited), 3 pending; 1 rule failing; 1 alerting rule cannot fire; 1 of 128 targets not up; 2 active silences (1 matching no alert).",
    );
  });

  it("orders groups firing first, then most severe, then most recent onset; the shared labels once, severity as the group's", async () => {
    const { value } = await fitted(incident());
    const groups = value.alerts as Array<Record<string, unknown>>;
    expect(groups.map((group) => `${group.state}:${group.alertname}`)).toEqual([
      "firing:NodeMemoryLow",
      "firing:HighErrorRate",
      "firing:LatencyHigh",
      "firing:KubePodCrashLooping",
      "firing:Watchdog",
      "pending:KubePodNotReady",
    ]);
    const notReady = groups.at(-1) as Record<string, unknown>;
    expect(notReady).toMatchObject({
      count: 3,
      severity: "warning",
      labels: { namespace: "recommendations" },
      onset: minutesAgo(6),
    });
    // Each pod once, newest onset first, without what the group shows.
    expect(notReady.instances).toEqual([
      { labels: { pod: "model-server-7d9f-a1" }, onset: minutesAgo(4), value: "1e+00" },
      { labels: { pod: "model-server-7d9f-b2" }, onset: minutesAgo(5), value: "1e+00" },
      { labels: { pod: "model-server-7d9f-c3" }, onset: minutesAgo(6), value: "1e+00" },
    ]);
    expect(groups.find((group) => group.alertname === "Watchdog")).toMatchObject({
      alertmanager: "silenced",
      silenced_by: [{ id: "5e1c0d2b" }],
    });
  });

  it("an alert storm (every pod of the cluster crash-looping): counted, five listed per group, still under 2,000 tokens", async () => {
    const parts = incident();
    const storm = ON_CALL_PODS.map((pod, i) =>
      alert(
        { alertname: "KubePodCrashLooping", severity: "warning", namespace: pod.namespace, pod: pod.pod },
        "firing",
        10 + (i % 50),
      ),
    );
    parts.alerts = [...parts.alerts.filter((a) => a.labels.alertname !== "KubePodCrashLooping"), ...storm];
    parts.alertsTotal = parts.alerts.length;
    const { value, text } = await fitted(parts);
    expect(maxRealTokens(text)).toBeLessThan(2_000);
    const group = (value.alerts as Array<Record<string, unknown>>).find(
      (g) => g.alertname === "KubePodCrashLooping",
    );
    expect(group?.count).toBe(ON_CALL_PODS.length);
    expect(group?.instances).toHaveLength(5);
    expect(value.summary).toContain(
      `${parts.alerts.filter((a) => a.state === "firing").length} alerts firing`,
    );
  });

  it("cut to a budget: truncated first, saying what was left out; the most severe group kept; within budget", async () => {
    const whole = await fitted(incident());
    const budget = Math.floor(maxRealTokens(whole.text) / 3);
    const { value, text } = await fitted(incident(), budget);
    expect(Object.keys(value)[0]).toBe("truncated");
    expect((value.truncated as { note: string }).note).toMatch(
      /^Cut to fit this reply: .* left out \(most severe and most recent kept\)/,
    );
    expect(maxRealTokens(text)).toBeLessThanOrEqual(budget);
    const first = (value.alerts as Array<Record<string, unknown>> | undefined)?.[0];
    expect(first?.alertname).toBe("NodeMemoryLow");
  });

  it("groupAlerts puts a group of mixed severities at its most severe", () => {
    const groups = groupAlerts([
      alert({ alertname: "A", severity: "info" }, "firing", 5),
      alert({ alertname: "B", severity: "warning" }, "firing", 5),
      alert({ alertname: "B", severity: "critical" }, "firing", 9),
    ]);
    expect(groups.map((group) => [group.alertname, group.severity])).toEqual([
      ["B", "critical"],
      ["A", "info"],
    ]);
  });
});
