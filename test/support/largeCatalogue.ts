/**
 * Large catalogues of uncommon words (issue 38, item 5), in a real Prometheus and a real Alertmanager: what
 * every tool's default answer must fit the token budget on, whatever the words.
 *
 * - 3,000 metric names, long and uncommon (`quorvex_ßtrand_FluxCapacitor_7c1e9a_okapi_ratio`): made of rare
 *   syllables, camel-case parts, hex, and a few non-ASCII letters (legal in none of Prometheus's names, so
 *   only in label values and help texts).
 * - 9,000 backfilled series (`promtool tsdb create-blocks-from openmetrics`), three per metric, labelled
 *   `tenant` (a UUID), `digest` (40 hex), `source_path` (a long path), `owner` (non-ASCII: Cyrillic, Greek,
 *   CJK, accented Latin), `shard`: thousands of distinct values per label.
 * - A scrape target (a small HTTP server here) exposing every metric with a long `# HELP` (so that
 *   /api/v1/metadata has 3,000 entries: backfilled data has no metadata) and, for the first 500 metrics,
 *   four live series each, which 500 alerting rules fire on (2,000 alerts, labels and annotations
 *   uncommon), beside 500 recording rules (one in five failing at every evaluation).
 * - 1,000 silences in Alertmanager, matchers and comments uncommon.
 *
 * Everything is generated from a seed: the same words on every run.
 */
import { createServer, type Server } from "node:http";
import { amApi, startAlertmanager } from "./alerting.js";
import { closeServer, listenLoopback } from "./net.js";
import { type RunningPrometheus, startPrometheus } from "./prometheus.js";

export const CATALOGUE = {
  metrics: 3_000,
  seriesPerMetric: 3,
  /** Metrics with live series (the scrape target's), each with LIVE_SERIES series, one alerting rule each. */
  alertingMetrics: 500,
  liveSeries: 4,
  recordingRules: 500,
  silences: 1_000,
  /** The backfilled samples' times (two per series). */
  start: 1_760_000_000,
  end: 1_760_000_600,
} as const;

/** A deterministic pseudo-random source (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RARE = [
  "quorvex",
  "zyphra",
  "okapi",
  "gnomon",
  "syzygy",
  "kvetch",
  "fjordic",
  "xylem",
  "pyrrhic",
  "quixa",
  "vexil",
  "tmesis",
  "ptarmig",
  "ylang",
  "jnana",
  "czardas",
  "dzhokh",
  "wrybill",
  "ouzel",
  "sphynx",
  "mbira",
  "ngultrum",
  "qintar",
  "zloty",
  "xebec",
  "cwtch",
  "crwth",
  "phlox",
  "glyph",
  "nymph",
];
const CAMEL = ["FluxCapacitor", "QuasiStellar", "HyperLoop", "ZebraCrossing", "NebulaDrift", "KrakenPulse"];
const UNITS = ["ratio", "seconds_total", "bytes", "joules", "pascals", "celsius", "total", "info"];
const OWNERS = [
  "Zoë Ångström-Łukasiewicz",
  "Мониторинг узла семь",
  "Δοκιμή απόδοσης",
  "東京第三データセンター",
  "서울 관제 센터",
  "Ærøskøbing Fjärrvärme",
  "Çağrı Merkezi İzmir",
  "Bảo trì hệ thống",
];

const hex = (random: () => number, length: number) =>
  Array.from({ length }, () => "0123456789abcdef"[Math.floor(random() * 16)]).join("");
const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;
const uuid = (random: () => number) =>
  `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-a${hex(random, 3)}-${hex(random, 12)}`;

/** Metric i's name: unique (its index in base 36 is part of it), 30 to 90 characters. */
function metricName(random: () => number, i: number): string {
  const parts = [pick(random, RARE), `${pick(random, RARE)}${i.toString(36)}`];
  if (random() < 0.5) parts.push(pick(random, CAMEL));
  if (random() < 0.6) parts.push(hex(random, 6 + Math.floor(random() * 10)));
  parts.push(pick(random, RARE), pick(random, UNITS));
  return parts.join("_");
}

export interface CatalogueSeries {
  metric: string;
  labels: Record<string, string>;
}

export interface Catalogue {
  /** Every metric name, in generation order. */
  metrics: string[];
  /** Each metric's help text (uncommon words, non-ASCII). */
  help: Map<string, string>;
  /** The backfilled series. */
  series: CatalogueSeries[];
  /** The scrape target's live series (of the first `alertingMetrics` metrics). */
  live: CatalogueSeries[];
}

/** The catalogue's words (deterministic). */
export function largeCatalogue(): Catalogue {
  const random = seeded(38);
  const metrics = Array.from({ length: CATALOGUE.metrics }, (_, i) => metricName(random, i));
  const help = new Map(
    metrics.map((metric) => [
      metric,
      `${pick(random, OWNERS)}: ${pick(random, RARE)} ${pick(random, CAMEL)} of ${hex(random, 12)}, per ${pick(random, RARE)} (${uuid(random)}).`,
    ]),
  );
  const labelsOf = (shard: number) => ({
    tenant: uuid(random),
    digest: hex(random, 40),
    source_path: `/srv/${pick(random, RARE)}/${pick(random, CAMEL)}/${hex(random, 10)}/${pick(random, RARE)}-${pick(random, RARE)}.${pick(random, ["yaml", "tfstate", "parquet"])}`,
    owner: pick(random, OWNERS),
    shard: `shard-${shard}`,
  });
  const series = metrics.flatMap((metric) =>
    Array.from({ length: CATALOGUE.seriesPerMetric }, (_, k) => ({ metric, labels: labelsOf(k) })),
  );
  const live = metrics
    .slice(0, CATALOGUE.alertingMetrics)
    .flatMap((metric) =>
      Array.from({ length: CATALOGUE.liveSeries }, (_, k) => ({ metric, labels: labelsOf(k) })),
    );
  return { metrics, help, series, live };
}

const labelText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([name, value]) => `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)
    .join(",");

/** The backfilled series in OpenMetrics (untyped: backfilled data has no metadata anyway), two samples each, in chunks. */
function* catalogueOpenMetrics(catalogue: Catalogue): Generator<string> {
  let chunk = "";
  for (const [i, { metric, labels }] of catalogue.series.entries()) {
    const line = `${metric}{${labelText(labels)}}`;
    chunk += `${line} 1 ${CATALOGUE.start}\n${line} 2 ${CATALOGUE.end}\n`;
    if (i % 1000 === 999) {
      yield chunk;
      chunk = "";
    }
  }
  yield `${chunk}# EOF\n`;
}

/** The scrape target's page: every metric's HELP and TYPE, one sample each, the live series. */
function scrapePage(catalogue: Catalogue): string {
  const lines: string[] = [];
  const liveBy = new Map<string, CatalogueSeries[]>();
  for (const series of catalogue.live)
    liveBy.set(series.metric, [...(liveBy.get(series.metric) ?? []), series]);
  for (const metric of catalogue.metrics) {
    const help = (catalogue.help.get(metric) ?? "").replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
    lines.push(`# HELP ${metric} ${help}`, `# TYPE ${metric} gauge`);
    const live = liveBy.get(metric);
    if (live === undefined) lines.push(`${metric} 0`);
    else for (const { labels } of live) lines.push(`${metric}{${labelText(labels)}} 1`);
  }
  return `${lines.join("\n")}\n`;
}

const RULES_FILE = "catalogue-rules.yml";

function rulesFile(catalogue: Catalogue): string {
  const random = seeded(3838);
  const alerting = catalogue.metrics.slice(0, CATALOGUE.alertingMetrics).map((metric, i) => ({
    alert: `${pick(random, CAMEL)}${pick(random, RARE)}${i.toString(36)}Anomalous`,
    expr: `${metric} > 0`,
    labels: { severity: pick(random, ["critical", "warning", "info", "page"]), team: pick(random, OWNERS) },
    annotations: {
      summary: `{{ $labels.owner }}: ${pick(random, RARE)} ${pick(random, CAMEL)} on {{ $labels.tenant }} at {{ $labels.source_path }}`,
      description: `${pick(random, OWNERS)} ${hex(random, 16)} ${pick(random, RARE)} {{ $value }}`,
    },
  }));
  const recording = catalogue.metrics.slice(0, CATALOGUE.recordingRules).map((metric, i) => ({
    record: `catalogue:${metric}:sum_by_owner`,
    // One in five fails at every evaluation: matching on no label pairs its four series with four.
    expr: i % 5 === 0 ? `${metric} + on() ${metric}` : `sum by (owner, tenant) (${metric})`,
  }));
  const groups = [];
  for (let g = 0; g < 50; g++) {
    groups.push({
      name: `${pick(random, RARE)}-${pick(random, CAMEL)}-${hex(random, 8)}`,
      interval: "2s",
      rules: [...alerting.slice(g * 10, g * 10 + 10), ...recording.slice(g * 10, g * 10 + 10)],
    });
  }
  return JSON.stringify({ groups });
}

function prometheusConfig(targetHost: string, alertmanagerUrl: string): string {
  return JSON.stringify({
    global: { scrape_interval: "2s", evaluation_interval: "2s" },
    scrape_configs: [{ job_name: "catalogue", static_configs: [{ targets: [targetHost] }] }],
    alerting: {
      alertmanagers: [{ api_version: "v2", static_configs: [{ targets: [new URL(alertmanagerUrl).host] }] }],
    },
    rule_files: [RULES_FILE],
  });
}

async function createSilences(alertmanagerUrl: string): Promise<void> {
  const random = seeded(383838);
  const now = Date.now();
  for (let i = 0; i < CATALOGUE.silences; i++) {
    const body = {
      matchers: [
        { name: "tenant", value: uuid(random), isRegex: false, isEqual: true },
        // One in ten a regex: Alertmanager matches every alert against every silence on each post.
        i % 10 === 0
          ? {
              name: "source_path",
              value: `/srv/${pick(random, RARE)}/.*/${hex(random, 10)}.*`,
              isRegex: true,
              isEqual: true,
            }
          : { name: "digest", value: hex(random, 40), isRegex: false, isEqual: true },
      ],
      createdBy: `${pick(random, OWNERS)} <${pick(random, RARE)}@${hex(random, 6)}.example>`,
      comment: `${pick(random, RARE)} ${pick(random, CAMEL)} ${uuid(random)}: ${pick(random, OWNERS)}`,
      startsAt: new Date(now).toISOString(),
      endsAt: new Date(now + (1 + i) * 3_600_000).toISOString(),
    };
    const response = await fetch(`${alertmanagerUrl}/api/v2/silences`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 200)
      throw new Error(`creating silence ${i}: ${response.status} ${await response.text()}`);
  }
}

export interface CatalogueStack {
  catalogue: Catalogue;
  prometheus: Pick<RunningPrometheus, "url" | "api">;
  alertmanager: { url: string; api<T = unknown>(path: string): Promise<T> };
  close(): Promise<void>;
}

/** How long startCatalogueStack waits for the rules, alerts and metadata to settle. */
const SETTLE_TIMEOUT_MS = 90_000;

/**
 * Starts the catalogue's Alertmanager, scrape target and Prometheus (everything on 127.0.0.1), and resolves
 * once every alert fires in Prometheus and has reached Alertmanager, every metric has metadata and every
 * recording rule has been evaluated.
 */
export async function startCatalogueStack(): Promise<CatalogueStack> {
  const catalogue = largeCatalogue();
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    const am = await startAlertmanager();
    closers.push(am.close);
    const page = scrapePage(catalogue);
    const target: Server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
      response.end(page);
    });
    const targetUrl = await listenLoopback(target);
    closers.push(() => closeServer(target));
    await createSilences(am.url);
    const prometheus = await startPrometheus({
      openMetrics: () => catalogueOpenMetrics(catalogue),
      config: () => prometheusConfig(new URL(targetUrl).host, am.url),
      files: { [RULES_FILE]: rulesFile(catalogue) },
      args: ["--rules.alert.resend-delay=5s"],
    });
    closers.push(prometheus.close);
    await settle(prometheus, am.url);
    return {
      catalogue,
      prometheus: { url: prometheus.url, api: prometheus.api },
      alertmanager: { url: am.url, api: (path) => amApi(am.url, path) },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

async function settle(prometheus: RunningPrometheus, alertmanagerUrl: string): Promise<void> {
  const alerts = CATALOGUE.alertingMetrics * CATALOGUE.liveSeries;
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let seen = "nothing yet";
  while (Date.now() < deadline) {
    try {
      const [firing, metadata, amAlerts, rules, alertmanagers] = await Promise.all([
        prometheus.api<{ alerts: Array<{ state: string }> }>("alerts", {}),
        prometheus.api<Record<string, unknown>>("metadata", {}),
        amApi<unknown[]>(alertmanagerUrl, "alerts"),
        prometheus.api<{ groups: Array<{ rules: Array<{ lastEvaluation: string }> }> }>("rules", {}),
        prometheus.api<{ activeAlertmanagers: unknown[] }>("alertmanagers", {}),
      ]);
      const fired = firing.alerts.filter((alert) => alert.state === "firing").length;
      const evaluated = rules.groups
        .flatMap((group) => group.rules)
        .every((rule) => !rule.lastEvaluation.startsWith("0001"));
      seen = `${fired} firing, ${amAlerts.length} in Alertmanager, ${Object.keys(metadata).length} metadata, rules evaluated: ${evaluated}, Alertmanagers discovered: ${alertmanagers.activeAlertmanagers.length}`;
      if (
        fired === alerts &&
        amAlerts.length === alerts &&
        Object.keys(metadata).length >= CATALOGUE.metrics &&
        evaluated
      )
        return;
    } catch (error) {
      seen = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the catalogue stack did not settle within ${SETTLE_TIMEOUT_MS} ms: ${seen}`);
}
