import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askCatalogue, CATALOGUE_ASKS } from "../helpers/catalogueAnswers.js";
import { alertmanagerAvailable } from "../support/alerting.js";
import { CATALOGUE, type CatalogueStack, startCatalogueStack } from "../support/largeCatalogue.js";
import { prometheusAvailable } from "../support/prometheus.js";
import { realTokens } from "../support/tokenizers.js";

/**
 * Budgets that hold for every tool (issue 38, item 5): on large catalogues of uncommon words (thousands of
 * metric names, label values, series, rules, alerts, silences: test/support/largeCatalogue.ts) in a real
 * Prometheus and Alertmanager, every tool's largest default answer is within the 20,000-token budget by
 * both real tokenizers, and within what Claude Code keeps inline.
 */

const BUDGET = 20_000;

describe.skipIf(!prometheusAvailable() || !alertmanagerAvailable())(
  "every tool's default answer on large catalogues of uncommon words",
  () => {
    let stack: CatalogueStack;

    beforeAll(async () => {
      stack = await startCatalogueStack();
    }, 180_000);

    afterAll(async () => {
      await stack?.close();
    });

    it("the catalogues are as large as they claim, as Prometheus and Alertmanager report them", async () => {
      const [names, tenants, metadata, alerts, silences] = await Promise.all([
        stack.prometheus.api<string[]>("label/__name__/values", {}),
        stack.prometheus.api<string[]>("label/tenant/values", {}),
        stack.prometheus.api<Record<string, unknown>>("metadata", {}),
        stack.prometheus.api<{ alerts: unknown[] }>("alerts", {}),
        stack.alertmanager.api<unknown[]>("silences"),
      ]);
      expect(names.length).toBeGreaterThanOrEqual(CATALOGUE.metrics);
      expect(tenants.length).toBe(
        CATALOGUE.metrics * CATALOGUE.seriesPerMetric + CATALOGUE.alertingMetrics * CATALOGUE.liveSeries,
      );
      expect(Object.keys(metadata).length).toBeGreaterThanOrEqual(CATALOGUE.metrics);
      expect(alerts.alerts.length).toBe(CATALOGUE.alertingMetrics * CATALOGUE.liveSeries);
      expect(silences.length).toBe(CATALOGUE.silences);
    });

    it.each(CATALOGUE_ASKS.map((ask) => [ask.name, ask] as const))(
      "%s: within the budget by both tokenizers",
      async (_name, ask) => {
        const answer = await askCatalogue(stack, ask);
        const { claude, o200k } = realTokens(answer.text);
        console.log(
          JSON.stringify({ tool: ask.name, chars: answer.text.length, claude, o200k, cut: answer.cut }),
        );
        expect(claude).toBeLessThanOrEqual(BUDGET);
        expect(o200k).toBeLessThanOrEqual(BUDGET);
      },
      120_000,
    );
  },
);
