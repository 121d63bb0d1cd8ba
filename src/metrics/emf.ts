import type { ToolOutcome } from "./report.js";

/** What the handler knows of a request once it is answered. */
export interface RequestSummary {
  route: "mcp" | "health" | "direct" | "other";
  /** HTTP status (a direct invocation: the status its answer would have had over HTTP). */
  status: number;
  era: "modern" | "legacy" | "none";
  /** A reply of the response was a server fault (`-32603 Internal error`), whatever the status. */
  fault: boolean;
  /** Replies answered `-32001` at the deadline. */
  timeouts: number;
  rehydrations: number;
  tools: readonly ToolOutcome[];
}

/** An EMF document: the `_aws` directives, and the values and dimensions they name at the top level. */
export type EmfDocument = Record<string, unknown> & {
  _aws: { Timestamp: number; CloudWatchMetrics: readonly unknown[] };
};

type Unit = "Count" | "Milliseconds" | "Bytes";

/** The metric names, units and dimensions this server emits: the dashboard and alarms use these names. */
const PER_REQUEST: readonly [string, Unit][] = [
  ["ServerErrors", "Count"],
  ["Timeouts", "Count"],
  ["StoreFailures", "Count"],
  ["Rehydrations", "Count"],
];
const PER_TOOL: readonly [string, Unit][] = [
  ["ToolCalls", "Count"],
  ["ToolErrors", "Count"],
  ["ToolLatency", "Milliseconds"],
  ["ResultBytes", "Bytes"],
  ["Truncations", "Count"],
  ["UpstreamAttempts", "Count"],
  ["UpstreamRetries", "Count"],
];

/**
 * CloudWatch Embedded Metric Format for each request, merged into its log line (no API call, no other
 * write). Dimensions stay few and fixed: the service, the route and status class, the protocol era,
 * the tool name; never a session, a caller or a query.
 *
 * - by service: ServerErrors, Timeouts, StoreFailures, Rehydrations, and ColdStart on a container's
 *   first request;
 * - `Requests`, by route and status class, and by protocol era;
 * - per tool call, by tool: ToolCalls, ToolErrors, ToolLatency, ResultBytes, Truncations,
 *   UpstreamAttempts, UpstreamRetries (a batch's calls of one tool are one value list each). A
 *   document holds one value per dimension name, so a batch calling several different tools gets one
 *   more document per further tool.
 *
 * The directives are built once: a request only fills in values. Powertools Metrics builds the same
 * documents (test/contract/metrics.test.ts checks it), but kept out on purpose: a Metrics puts every
 * metric under every dimension set, so one request needs three of its documents, each its own line,
 * where ours is one merged into the request's log line; and they cost far more than a few µs a request
 * more, besides what importing it adds to a cold start (bench case metrics-emf, `npm run bench --
 * --only=metricsEmf`; warm-tools-list-info gives the metrics' share of the line).
 */
export class MetricsRecorder {
  private coldStart = true;
  /** The directive lists a document can have (first request or not, a tool called or not, a further tool). */
  private readonly directives: {
    request: readonly unknown[];
    requestAndTool: readonly unknown[];
    coldStart: readonly unknown[];
    coldStartAndTool: readonly unknown[];
    tool: readonly unknown[];
  };

  constructor(
    namespace: string,
    private readonly service: string,
  ) {
    const directive = (dimensions: string[][], metrics: readonly [string, Unit][]) => ({
      Namespace: namespace,
      Dimensions: dimensions,
      Metrics: metrics.map(([Name, Unit]) => ({ Name, Unit })),
    });
    const requests = directive(
      [
        ["service", "route", "status_class"],
        ["service", "era"],
      ],
      [["Requests", "Count"]],
    );
    const request = [directive([["service"]], PER_REQUEST), requests];
    const coldStart = [directive([["service"]], [...PER_REQUEST, ["ColdStart", "Count"]]), requests];
    const tool = directive([["service", "tool"]], PER_TOOL);
    this.directives = {
      request,
      requestAndTool: [...request, tool],
      coldStart,
      coldStartAndTool: [...coldStart, tool],
      tool: [tool],
    };
  }

  /** The request's documents: the first merges into its log line, any others are written beside it. */
  documents(summary: RequestSummary, now = Date.now()): EmfDocument[] {
    const coldStart = this.coldStart;
    const main: EmfDocument = {
      _aws: {
        Timestamp: now,
        CloudWatchMetrics: coldStart ? this.directives.coldStart : this.directives.request,
      },
      service: this.service,
      route: summary.route,
      status_class: statusClass(summary.status),
      era: summary.era,
      Requests: 1,
      ServerErrors: summary.status >= 500 || summary.fault ? 1 : 0,
      Timeouts: summary.timeouts,
      StoreFailures: summary.status === 503 ? 1 : 0,
      Rehydrations: summary.rehydrations,
    };
    if (coldStart) {
      main.ColdStart = 1;
      this.coldStart = false;
    }
    const documents = [main];
    for (const [tool, outcomes] of byTool(summary.tools)) {
      const values = toolValues(tool, outcomes);
      if (documents.length === 1 && main.tool === undefined) {
        main._aws.CloudWatchMetrics = coldStart
          ? this.directives.coldStartAndTool
          : this.directives.requestAndTool;
        Object.assign(main, values);
      } else {
        documents.push({
          _aws: { Timestamp: now, CloudWatchMetrics: this.directives.tool },
          service: this.service,
          ...values,
        });
      }
    }
    return documents;
  }
}

/** Directive lists as JSON: they are few and fixed, so each is serialized once. */
const directivesJson = new WeakMap<readonly unknown[], string>();

/**
 * The document as one JSON object, after the keys of `record` (a log record it is merged into; the
 * document's values win over the record's). Cheaper than JSON.stringify on the merged object (bench
 * case warm-tools-list-info): the directives, the same on every line, are serialized once.
 */
export function serializeEmf(document: EmfDocument, record: Record<string, unknown> = {}): string {
  const directives = directivesJsonOf(document._aws.CloudWatchMetrics);
  // Copied key by key: a spread of these objects (a document given its tool values by Object.assign)
  // took V8's slow path, on every request's line (bench case warm-tools-call-info).
  const merged: Record<string, unknown> = {};
  for (const key in record) merged[key] = record[key];
  for (const key in document) if (key !== "_aws") merged[key] = document[key];
  const body = JSON.stringify(merged);
  const aws = `"_aws":{"Timestamp":${JSON.stringify(document._aws.Timestamp)},"CloudWatchMetrics":${directives}}`;
  return body === "{}" ? `{${aws}}` : `${body.slice(0, -1)},${aws}}`;
}

function directivesJsonOf(directives: readonly unknown[]): string {
  let json = directivesJson.get(directives);
  if (json === undefined) {
    json = JSON.stringify(directives);
    directivesJson.set(directives, json);
  }
  return json;
}

/** One tool's values: a number for one call, a list for several (EMF takes up to 100 values a metric). */
function toolValues(tool: string, outcomes: readonly ToolOutcome[]): Record<string, unknown> {
  const one = outcomes.length === 1;
  const values = (of: (outcome: ToolOutcome) => number) =>
    one ? of(outcomes[0] as ToolOutcome) : outcomes.map(of);
  return {
    tool,
    ToolCalls: values(() => 1),
    ToolErrors: values((outcome) => (outcome.failed ? 1 : 0)),
    ToolLatency: values((outcome) => Math.round(outcome.ms * 100) / 100),
    ResultBytes: values((outcome) => outcome.resultBytes),
    Truncations: values((outcome) => (outcome.truncated ? 1 : 0)),
    UpstreamAttempts: values((outcome) => outcome.upstreamAttempts),
    UpstreamRetries: values((outcome) => Math.max(0, outcome.upstreamAttempts - 1)),
  };
}

function byTool(outcomes: readonly ToolOutcome[]): Map<string, ToolOutcome[]> {
  const groups = new Map<string, ToolOutcome[]>();
  for (const outcome of outcomes) {
    const group = groups.get(outcome.tool);
    if (group) group.push(outcome);
    else groups.set(outcome.tool, [outcome]);
  }
  return groups;
}

function statusClass(status: number): string {
  return `${Math.min(5, Math.max(1, Math.floor(status / 100)))}xx`;
}
