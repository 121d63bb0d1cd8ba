import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DECLARED_CHARS } from "../../src/results/inlineSize.js";
import { alertmanagerAvailable } from "../support/alerting.js";
import { askCatalogue, CATALOGUE_ASKS } from "../support/catalogueAnswers.js";
import { CATALOGUE, type CatalogueStack, startCatalogueStack } from "../support/largeCatalogue.js";
import { prometheusAvailable } from "../support/prometheus.js";
import { realTokens } from "../support/tokenizers.js";

/**
 * Budgets that hold for every tool (issue 38, item 5): on large catalogues of uncommon words (thousands of
 * metric names, label values, series, rules, alerts, silences: test/support/largeCatalogue.ts) in a real
 * Prometheus and Alertmanager, every tool's largest default answer is within the 20,000-token budget by
 * both real tokenizers, within what every tool declares Claude Code may keep inline, and (but for the query
 * tools' own pairs) writes no time in Unix seconds.
 */

const BUDGET = 20_000;
const QUERY_TOOLS = new Set(["ExecuteQuery", "ExecuteRangeQuery", "PlotRangeQuery"]);
/** A time in Unix seconds from 2017 to 2033, as a number of its own (not inside a hash or a name). */
const UNIX_SECONDS = /(?<![\w.-])1[5-9]\d{8}(\.\d+)?(?![\w-])/;

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
      "%s: within the budget by both tokenizers, inline in Claude Code, no Unix-second times",
      async (_name, ask) => {
        const answer = await askCatalogue(stack, ask);
        const { claude, o200k } = realTokens(answer.text);
        expect(claude).toBeLessThanOrEqual(BUDGET);
        expect(o200k).toBeLessThanOrEqual(BUDGET);
        // What every tool declares to Claude Code (src/results/inlineSize.ts): the answer stays inline.
        expect(answer.text.length).toBeLessThanOrEqual(MAX_DECLARED_CHARS);
        // Times the server writes are RFC 3339; only the query tools carry Prometheus's own Unix-second pairs.
        if (!QUERY_TOOLS.has(ask.tool.name)) expect(answer.text).not.toMatch(UNIX_SECONDS);
      },
      120_000,
    );
  },
);
