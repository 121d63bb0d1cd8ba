import fc from "fast-check";
import { lambdaContext } from "../support/events.js";
import type { Handler } from "../support/handler.js";
import {
  type FuzzEvent,
  fuzzEvent,
  type PooledSession,
  type SessionPool,
  toolCallEvent,
} from "./arbitraries.js";
import {
  check,
  describe,
  type FuzzSettings,
  HANG_GRACE_MS,
  type Observation,
  sentText,
  type Traffic,
  trafficOf,
} from "./oracle.js";

/** One configuration of the handler under fuzz. */
export interface FuzzConfig extends FuzzSettings {
  name: string;
  /** The function's environment (LOG_LEVEL INFO: the log lines are checked too). */
  env: Record<string, string>;
  sessions: "optional" | "required" | "off";
  /**
   * Share of events that are well-formed tool calls (toolCallEvent), the rest any event (default 0):
   * for a configuration about what the tools make of their upstream.
   */
  toolCallShare?: number;
}

/** What a run found: problems grouped by kind, each with its first event and where fast-check made it. */
export interface Finding {
  group: string;
  /** The first problem of the group. */
  problem: string;
  count: number;
  /** fast-check's path of the first case with this problem (replay it with the run's seed). */
  path: string;
  problems: string[];
  input: FuzzEvent;
  /** The events run at once with it, itself included (one when it ran alone). */
  case: FuzzEvent[];
  /** The smallest case fast-check shrank it to, when the problem reproduces on a fresh replay. */
  shrunk?: { inputs: FuzzEvent[]; problems: string[]; path: string } | "did not reproduce on replay";
}

export interface FuzzReport {
  config: string;
  seed: number;
  events: number;
  /** Of those, events run two to four at once against the same handler. */
  concurrent: number;
  seconds: number;
  shapes: Record<string, number>;
  /** Events by the protocol era the oracle says serves them (2026-07-28 "modern", the 2025 revisions "legacy"). */
  eras: Record<string, number>;
  statuses: Record<string, number>;
  /** The most frequent replies by status, JSON-RPC code and message start: what the events reached. */
  reasons: [string, number][];
  findings: Finding[];
  /** With a FUZZ_PATH: the events replayed, what they got, and their problems. */
  replayed?: { observation: Observation; problems: string[] }[];
}

/** An event whose query asks the tiny Prometheus to hang gets little time, so the deadline ends it. */
const HANG_REMAINING_MS = 1_500;
/** How many distinct findings are shrunk, and for how long each. */
const SHRINK_FINDINGS = 6;
const SHRINK_MS = Number(process.env.FUZZ_SHRINK_MS ?? 20_000);
/** Live sessions kept in the pool (re-made every POOL_REFRESH cases: a fuzzed DELETE may end one). */
const POOL_SIZE = 6;
const POOL_REFRESH = 1_000;
const POOL_PRINCIPALS = [undefined, "arn:aws:iam::123456789012:user/fuzz-a", "fuzz-jwt-sub"];
const REASONS_SHOWN = 25;

/** Captures what the process writes to stdout and stderr (where Powertools Logger writes). */
class OutputCapture {
  private lines: string[] = [];
  private readonly writes = { out: process.stdout.write, err: process.stderr.write };

  install(): void {
    const capture = (chunk: unknown, ...rest: unknown[]): boolean => {
      this.lines.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
      const callback = rest.find((argument) => typeof argument === "function") as (() => void) | undefined;
      callback?.();
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
  }

  take(): string[] {
    const taken = this.lines;
    this.lines = [];
    return taken;
  }

  restore(): void {
    process.stdout.write = this.writes.out;
    process.stderr.write = this.writes.err;
  }
}

const HUNG = Symbol("hung");

/** Runs one event; `output` (when given) attributes what was logged meanwhile to it. */
async function observe(
  handler: Handler,
  input: FuzzEvent,
  output: OutputCapture | undefined,
): Promise<Observation> {
  output?.take();
  const startedAt = performance.now();
  let result: unknown;
  let thrown: unknown;
  let threw = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    result = await Promise.race([
      handler(input.event, lambdaContext(input.remainingMs)),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve(HUNG), Math.max(0, input.remainingMs) + HANG_GRACE_MS);
      }),
    ]);
  } catch (error) {
    threw = true;
    thrown = error;
  } finally {
    clearTimeout(timer);
  }
  const elapsedMs = performance.now() - startedAt;
  return {
    input,
    result: result === HUNG ? undefined : result,
    thrown,
    threw,
    elapsedMs,
    hung: result === HUNG,
    logs: output?.take() ?? [],
  };
}

/** Runs one case: an event alone (its own log lines), or several at once (their lines shared). */
async function observeCase(
  handler: Handler,
  inputs: readonly FuzzEvent[],
  output: OutputCapture,
): Promise<Observation[]> {
  if (inputs.length === 1) return [await observe(handler, inputs[0] as FuzzEvent, output)];
  output.take();
  const observations = await Promise.all(inputs.map((input) => observe(handler, input, undefined)));
  const logs = output.take();
  return observations.map((observation, index) => ({
    ...observation,
    logs: index === 0 ? logs : [],
    sharedLogs: true,
  }));
}

/** Makes the pool's sessions: `initialize` from each of a few principals. */
async function refillPool(handler: Handler, config: FuzzConfig, pool: SessionPool): Promise<void> {
  pool.sessions.length = 0;
  if (config.sessions === "off") return;
  for (let i = 0; i < POOL_SIZE; i++) {
    const principal = POOL_PRINCIPALS[i % POOL_PRINCIPALS.length];
    const event = {
      version: "2.0",
      rawPath: "/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      requestContext: {
        requestId: `pool-${i}`,
        http: { method: "POST", path: "/mcp" },
        ...(principal ? { authorizer: { iam: { userArn: principal } } } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "fuzz", version: "1" },
        },
      }),
      isBase64Encoded: false,
    };
    const result = (await handler(event, lambdaContext(30_000))) as { headers?: Record<string, string> };
    const id = result.headers?.["Mcp-Session-Id"];
    if (id === undefined) throw new Error(`initialize made no session: ${describe(result)}`);
    pool.sessions.push({ id, principal } satisfies PooledSession);
  }
}

/** Problems of one kind and cause share a group: `kind: first clause` (faults: down to the error's message). */
function groupOf(problem: string): string {
  const segments = problem.split(": ");
  const kept = segments.slice(0, segments[0] === "fault" ? 4 : 2).join(": ");
  return kept.replace(/\d+/g, "#").slice(0, 110);
}

function withHangBounded(input: FuzzEvent): FuzzEvent {
  if (input.remainingMs <= HANG_REMAINING_MS || !sentText(input.event).includes("hang")) return input;
  return { ...input, remainingMs: HANG_REMAINING_MS };
}

/** Mostly one event; one case in ten, two to four events run at once against the same handler. */
function fuzzCase(pool: SessionPool, toolCallShare = 0): fc.Arbitrary<FuzzEvent[]> {
  const anyEvent = fuzzEvent(pool);
  const percent = Math.round(toolCallShare * 100);
  const event = (
    percent <= 0
      ? anyEvent
      : fc.oneof(
          { weight: 100 - percent, arbitrary: anyEvent },
          { weight: percent, arbitrary: toolCallEvent },
        )
  ).map(withHangBounded);
  return fc.oneof(
    { weight: 9, arbitrary: event.map((input) => [input]) },
    { weight: 1, arbitrary: fc.array(event, { minLength: 2, maxLength: 4 }) },
  );
}

/**
 * Runs `runs` cases through the handler (seeded, so a run is reproducible) and checks every event
 * against the invariants. Problems do not stop the run: they are grouped, and the first case of each
 * of the first groups is then replayed alone and shrunk to a smaller case that still shows it.
 */
export async function fuzz(
  handler: Handler,
  config: FuzzConfig,
  options: { runs: number; seed: number; path?: string },
): Promise<FuzzReport> {
  const pool: SessionPool = { sessions: [] };
  const output = new OutputCapture();
  const findings = new Map<string, Finding>();
  const shapes: Record<string, number> = {};
  const eras: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const reasons = new Map<string, number>();
  const replayed: NonNullable<FuzzReport["replayed"]> = [];
  const arbitrary = fuzzCase(pool, config.toolCallShare);
  let index = 0;
  let events = 0;
  let concurrent = 0;

  output.install();
  try {
    await refillPool(handler, config, pool);
    output.take();
    const startedAt = performance.now();
    const property = fc.asyncProperty(arbitrary, async (inputs) => {
      const at = index++;
      if (at > 0 && at % POOL_REFRESH === 0) {
        await refillPool(handler, config, pool);
        output.take();
      }
      events += inputs.length;
      if (inputs.length > 1) concurrent += inputs.length;
      for (const observation of await observeCase(handler, inputs, output)) {
        const input = observation.input;
        shapes[input.shape] = (shapes[input.shape] ?? 0) + 1;
        const traffic: Traffic = trafficOf(input.event, config);
        const era = traffic.era === "modern" ? `modern ${expectedKind(traffic)}` : traffic.era;
        eras[era] = (eras[era] ?? 0) + 1;
        const status = statusOf(observation);
        statuses[status] = (statuses[status] ?? 0) + 1;
        for (const reason of reasonsOf(status, observation.result)) {
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        }
        const problems = check(observation, config, traffic);
        if (options.path !== undefined) replayed.push({ observation, problems });
        // One finding per event, named by its most telling problem (a logged fault names its cause).
        const problem = problems.find((candidate) => candidate.startsWith("fault: logged")) ?? problems[0];
        if (problem !== undefined) {
          const group = groupOf(problem);
          const known = findings.get(group);
          if (known) known.count++;
          else
            findings.set(group, {
              group,
              problem,
              count: 1,
              path: String(at),
              problems,
              input,
              case: inputs,
            });
        }
      }
    });
    const details = await fc.check(property, {
      seed: options.seed,
      numRuns: options.runs,
      ...(options.path === undefined ? {} : { path: options.path }),
    });
    const seconds = (performance.now() - startedAt) / 1000;
    if (details.failed) {
      // The property itself never fails: this is the harness breaking.
      throw new Error(`the fuzz harness failed: ${fc.defaultReportMessage(details)}`);
    }

    let shrunk = 0;
    for (const finding of findings.values()) {
      if (options.path !== undefined || shrunk++ >= SHRINK_FINDINGS) break;
      finding.shrunk = await shrink(handler, config, arbitrary, output, options.seed, finding);
    }
    return {
      config: config.name,
      seed: options.seed,
      events,
      concurrent,
      seconds,
      shapes,
      eras,
      statuses,
      reasons: [...reasons].sort((a, b) => b[1] - a[1]).slice(0, REASONS_SHOWN),
      findings: [...findings.values()],
      ...(options.path === undefined ? {} : { replayed }),
    };
  } finally {
    output.restore();
  }
}

/** What 2026-07-28 was due to answer, in short: `served`, `accepted`, or the refusal's status and code. */
function expectedKind(traffic: Traffic & { era: "modern" }): string {
  const expected = traffic.expected;
  return expected.kind === "refused" ? `${expected.status} ${expected.code}` : expected.kind;
}

/** What each reply of an answer says, in short: `status code message-start` (`ok` for a result). */
function reasonsOf(status: string, result: unknown): string[] {
  let replies: unknown = result;
  if (typeof result === "object" && result !== null && "body" in result) {
    try {
      replies = JSON.parse(String((result as { body: unknown }).body));
    } catch {
      return [`${status} (empty or not JSON)`];
    }
  }
  const list = Array.isArray(replies) ? replies : [replies];
  return list.slice(0, 3).map((reply) => {
    const error = (reply as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (error && typeof error === "object") {
      const message = typeof error.message === "string" ? error.message.slice(0, 40) : "";
      return `${status} ${String(error.code)} ${message}`;
    }
    const isError = (reply as { result?: { isError?: unknown } } | null)?.result?.isError === true;
    return `${status} ${isError ? "tool error" : "ok"}`;
  });
}

function statusOf(observation: Observation): string {
  if (observation.threw) return "threw";
  const result = observation.result;
  if (typeof result === "object" && result !== null && "statusCode" in result) {
    return String((result as { statusCode: unknown }).statusCode);
  }
  if (Array.isArray(result)) return "direct batch";
  if (result === null) return "direct null";
  return "direct";
}

async function shrink(
  handler: Handler,
  config: FuzzConfig,
  arbitrary: fc.Arbitrary<FuzzEvent[]>,
  output: OutputCapture,
  seed: number,
  finding: Finding,
): Promise<Finding["shrunk"]> {
  let last: { inputs: FuzzEvent[]; problems: string[] } | undefined;
  const property = fc.asyncProperty(arbitrary, async (inputs) => {
    const observations = await observeCase(handler, inputs, output);
    const problems = observations
      .flatMap((observation) => check(observation, config))
      .filter((problem) => groupOf(problem) === finding.group);
    if (problems.length > 0) {
      last = { inputs, problems };
      throw new Error(problems.join("\n"));
    }
  });
  const details = await fc.check(property, {
    seed,
    path: finding.path,
    numRuns: 1,
    interruptAfterTimeLimit: SHRINK_MS,
  });
  if (!details.failed || last === undefined) return "did not reproduce on replay";
  const inputs = details.counterexample?.[0] ?? last.inputs;
  return { inputs, problems: last.problems, path: details.counterexamplePath ?? finding.path };
}

function describeInput(input: FuzzEvent, max: number): string {
  const hostile = input.mutated.length > 0 ? `, hostile ${input.mutated.join(" ")}` : "";
  return `(${input.shape}, ${input.remainingMs} ms left${hostile}): ${describe(input.event, max)}`;
}

/** The report as text: counts, time, and each finding with what replays it (`replay`: the variables naming the run). */
export function formatReport(report: FuzzReport, replay: string): string {
  const rate = report.events / Math.max(report.seconds, 0.001);
  const lines = [
    `fuzz ${report.config}: ${report.events} events (${report.concurrent} of them run 2 to 4 at once) in ${report.seconds.toFixed(1)} s, ${Math.round(rate)} events/s, seed ${report.seed}`,
    `  shapes: ${describe(report.shapes)}`,
    `  eras: ${describe(report.eras)}`,
    `  answers: ${describe(report.statuses)}`,
    `  most frequent replies: ${report.reasons.map(([reason, count]) => `${count}x ${reason}`).join(" | ")}`,
  ];
  for (const { observation, problems } of report.replayed ?? []) {
    lines.push(
      `  replayed event ${describeInput(observation.input, 20_000)}`,
      `  answer after ${observation.elapsedMs.toFixed(1)} ms: ${describe(observation.threw ? observation.thrown : observation.result, 20_000)}`,
      `  logs: ${observation.logs.join("").slice(0, 20_000)}`,
      `  problems: ${problems.length === 0 ? "none" : problems.join("\n    ")}`,
    );
  }
  if (report.findings.length === 0) lines.push("  findings: none");
  for (const finding of report.findings) {
    const others =
      finding.case.length > 1 ? ` (run at once with ${finding.case.length - 1} other events)` : "";
    lines.push(
      `  FINDING (${finding.count}x) ${finding.problem}`,
      ...finding.problems.filter((other) => other !== finding.problem).map((other) => `    with: ${other}`),
      `    replay: ${replay} FUZZ_PATH=${finding.path}`,
      `    event${others} ${describeInput(finding.input, 1_500)}`,
    );
    if (finding.shrunk === undefined) continue;
    if (typeof finding.shrunk === "string") {
      lines.push(`    shrunk: ${finding.shrunk}`);
      continue;
    }
    for (const input of finding.shrunk.inputs) {
      lines.push(`    shrunk (path ${finding.shrunk.path}) ${describeInput(input, 1_500)}`);
    }
    lines.push(`    shrunk problem: ${finding.shrunk.problems[0]}`);
  }
  return lines.join("\n");
}
