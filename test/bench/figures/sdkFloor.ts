// Figure: the SDK's own floor (issue 39). Three handlers bundled as the function ships
// (bundleAsShipped: serverless.yml's esbuild settings and plugins): ours (src/lambda/handler.ts), the SDK-alone
// control (test/bench/sdkControl.ts: McpServer, the in-memory pair, one tool) and an empty handler.
// - cold: each sample is a fresh `node -e` importing one of them and answering one tools/list (the
//   cold-start figure's script), the three alternating; ours and the control are reported above the
//   empty handler (difference of medians, spawn to exit);
// - warm: one process imports ours and the control and sends both the same `tools/call`
//   (GetServerInfo, answered without an upstream call) alternately; ours runs at the production
//   defaults (LOG_LEVEL=INFO, metrics on: its request line is written, to a pipe), the control writes
//   nothing.
// Both run on the bench's Node and on a second one: `--node=<path>`, else Node 24 from npm.
// With `--base=<rev>`, our handler at that revision (bundled as it shipped) is a fourth cold side: the
// before and after of a change, measured in the same run.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleAsShipped } from "../../support/bundle.js";
import { runOk } from "../../support/childProcess.js";
import { httpEvent } from "../../support/events.js";
import type { BenchContext } from "../context.js";
import { round, type Stats } from "../measure.js";
import type { Figure } from "../report.js";
import { extractRevision } from "../revision.js";
import {
  alternate,
  coldScript,
  coldStart,
  type Launch,
  loadedAtInit,
  median,
  node24,
  type Side,
} from "./coldStart.js";

const AMP_URL =
  "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-12345678-abcd-1234-abcd-123456789012";
const WARM_TIMEOUT_MS = 120_000;

interface Built {
  name: string;
  dir: string;
  /** The entry file, and what it loads at init (its static imports), in bytes. */
  entryBytes: number;
  initBytes: number;
  initFiles: number;
}

async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const name of await readdir(dir)) files.set(name, await readFile(join(dir, name)));
  return files;
}

/** Bundles `entry` as the function ships; an entry given as source is written as it is (it imports nothing). */
async function build(
  root: string,
  dir: string,
  name: string,
  entry: string | { source: string },
): Promise<Built> {
  const out = join(dir, name);
  if (typeof entry === "string")
    await bundleAsShipped(root, out, { entryPoints: { handler: join(root, entry) } });
  else {
    await mkdir(out, { recursive: true });
    await writeFile(join(out, "handler.mjs"), entry.source);
  }
  const files = await filesOf(out);
  const init = loadedAtInit("handler.mjs", files);
  return {
    name,
    dir: join(out, "handler.mjs"),
    entryBytes: files.get("handler.mjs")?.length ?? 0,
    initBytes: init.reduce((sum, file) => sum + (files.get(file)?.length ?? 0), 0),
    initFiles: init.length,
  };
}

/**
 * Our handler at an earlier revision (`--base=<rev>`), bundled as that revision shipped it (its own
 * sources, scripts and bundling plugins, today's node_modules): its cold start is measured beside
 * today's in the same run. Undefined, with the reason, when the revision is not in this clone or does
 * not build.
 */
async function buildRevision(root: string, dir: string, revision: string): Promise<Built | string> {
  const work = join(dir, `revision-${revision}`);
  try {
    await mkdir(work, { recursive: true });
    extractRevision(root, revision, work);
    await symlink(join(root, "node_modules"), join(work, "node_modules"), "dir");
    // Issue 39 moved the entry from src/handler.ts into src/lambda/.
    const entry = existsSync(join(work, "src/lambda/handler.ts"))
      ? "src/lambda/handler.ts"
      : "src/handler.ts";
    const built = await build(work, dir, "base", entry);
    return { ...built, name: "base" };
  } catch (error) {
    return `revision ${revision} unavailable here: ${String((error as Error).message).split("\n")[0]}`;
  }
}

/** As Lambda starts a function at the production defaults; fake credentials (nothing reaches AWS). */
function productionEnv(cwd: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    PROMETHEUS_URL: AMP_URL,
    PROMETHEUS_AUTH: "sigv4",
    LOG_LEVEL: "INFO",
    METRICS: "on",
    AWS_REGION: "us-east-1",
    AWS_DEFAULT_REGION: "us-east-1",
    AWS_EXECUTION_ENV: "AWS_Lambda_nodejs24.x",
    AWS_LAMBDA_FUNCTION_NAME: "prometheus-mcp-lambda-cold-mcp",
    AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "512",
    AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
    LAMBDA_TASK_ROOT: cwd,
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_ACCESS_KEY_ID: "AKIDTESTFAKE",
    AWS_SECRET_ACCESS_KEY: "test-secret-not-real",
    AWS_SESSION_TOKEN: "test-session-token",
  };
}

/** The warm script: argv ours, control, rounds. One line: per-call medians (ms) of both, and the answers' sizes. */
function warmScript(): string {
  const event = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "GetServerInfo", arguments: {} },
    }),
    requestId: "warm",
  });
  return `import { writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [, oursFile, controlFile, rounds] = process.argv;
const ours = (await import(pathToFileURL(oursFile).href)).handler;
const control = (await import(pathToFileURL(controlFile).href)).handler;
const event = ${JSON.stringify(event)};
const context = { callbackWaitsForEmptyEventLoop: true, functionName: "f", functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:f", memoryLimitInMB: "512",
  awsRequestId: "warm", logGroupName: "g", logStreamName: "s", getRemainingTimeInMillis: () => 29000,
  done() {}, fail() {}, succeed() {} };
const first = JSON.parse((await ours(event, context)).body);
const text = first.result?.content?.[0]?.text;
if (typeof text !== "string") throw new Error("ours answered no text: " + JSON.stringify(first).slice(0, 300));
process.env.SDK_CONTROL_TEXT = text;
const check = JSON.parse((await control(event, context)).body);
if (check.result?.content?.[0]?.text !== text) throw new Error("the control answered otherwise");
const sides = [ours, control].map((handler) => ({ handler, samples: [], bytes: 0 }));
const turn = () => new Promise((resolve) => setImmediate(resolve));
for (let i = 0; i < Number(rounds); i++) {
  for (let k = 0; k < 2; k++) {
    const side = sides[(i + k) % 2];
    const t = performance.now();
    const result = await side.handler(event, context);
    side.samples.push(performance.now() - t);
    side.bytes = result.body.length;
    await turn();
  }
}
const kept = (s) => s.samples.slice(Math.floor(s.samples.length / 10)).sort((a, b) => a - b);
const p = (s, q) => { const v = kept(s); return v[Math.min(v.length - 1, Math.floor(v.length * q))]; };
writeSync(1, "\\n@@warm " + JSON.stringify(sides.map((s) => ({ p50: p(s, 0.5), p99: p(s, 0.99), n: kept(s).length, bytes: s.bytes }))) + "\\n");
process.exit(0);
`;
}

interface Warm {
  ours: Stats & { bytes: number };
  control: Stats & { bytes: number };
}

async function warm(node: string, ours: Built, control: Built, rounds: number): Promise<Warm> {
  const { stdout } = await runOk(
    node,
    ["--input-type=module", "-e", warmScript(), ours.dir, control.dir, String(rounds)],
    {
      cwd: tmpdir(),
      env: productionEnv(tmpdir()),
      timeoutMs: WARM_TIMEOUT_MS,
    },
  );
  const line = stdout
    .split("\n")
    .filter((l) => l.startsWith("@@warm "))
    .pop();
  if (line === undefined) throw new Error(`the warm run reported nothing: ${stdout.slice(-1000)}`);
  const [o, c] = JSON.parse(line.slice("@@warm ".length));
  return { ours: o, control: c };
}

/** Cold starts of the three bundles on `node`, alternating. */
async function cold(
  node: string,
  built: Built[],
  rounds: { iterations: number; warmup: number },
): Promise<Side[]> {
  const script = coldScript();
  const expect = { ours: "tools", control: "one", empty: "any", base: "tools" } as const;
  const sides = built.map(
    (b): Side => ({
      run: () => {
        const launch: Launch = {
          script,
          env: productionEnv(join(b.dir, "..")),
          cwd: join(b.dir, ".."),
          node,
        };
        return coldStart(launch, b.dir, "handler", expect[b.name as keyof typeof expect]);
      },
      wall: [],
      reports: [],
    }),
  );
  await alternate(sides, rounds.iterations, rounds.warmup);
  return sides;
}

function figuresFor(label: string, built: Built[], sides: Side[], w: Warm, base?: string): Figure[] {
  const [ours, control, empty, before] = sides as [Side, Side, Side, Side | undefined];
  const wall = (s: Side) => median(s.wall);
  const imported = (s: Side) => round(median(s.reports.map((r) => r.importMs)), 1);
  const cpu = (s: Side) => median(s.reports.map((r) => r.cpuMs));
  const cpuAbove = (s: Side) => round(cpu(s) - cpu(empty), 1);
  const oursAbove = round(wall(ours) - wall(empty), 1);
  const controlAbove = round(wall(control) - wall(empty), 1);
  const kb = (bytes: number) => round(bytes / 1024, 1);
  const size = (b: Built) =>
    `${b.name} ${kb(b.entryBytes)} KB entry, ${kb(b.initBytes)} KB in ${b.initFiles} files at init`;
  const warmRatio = round(w.control.p50 / w.ours.p50, 2);
  const ownShare = round(cpu(ours) - cpu(control), 1);
  const sinceBase: Figure[] =
    before === undefined
      ? []
      : [
          {
            id: `sdk-floor-cold-since-base-${label}`,
            title: `cold start (${label}) above an empty handler, CPU time: ours now vs. ours at ${base}, bundled as each shipped, in the same run`,
            unit: "ms",
            ours: cpuAbove(ours),
            baseline: { name: `ours at ${base}`, value: cpuAbove(before) },
            ratio: round(cpuAbove(before) / cpuAbove(ours), 2),
            target: "no costlier than the base revision",
            met: cpuAbove(ours) <= cpuAbove(before),
            note: `wall time above the empty handler: now ${oursAbove} ms, at ${base} ${round(wall(before) - wall(empty), 1)} ms; import ${imported(ours)} vs ${imported(before)} ms; ${size(built[3] as Built)}`,
          },
        ];
  return [
    ...sinceBase,
    {
      id: `sdk-floor-cold-${label}`,
      title: `cold start above an empty handler (${label}): ours vs. the SDK alone (McpServer + in-memory pair + one tool), one tools/list each, bundled as shipped`,
      unit: "ms",
      ours: oursAbove,
      baseline: { name: "SDK alone above the empty handler", value: controlAbove },
      ratio: round(controlAbove / oursAbove, 2),
      target: "ours below the SDK alone (difference of medians, spawn to exit)",
      met: oursAbove < controlAbove,
      note: `medians (n=${ours.wall.length} each, alternating): ours ${round(wall(ours), 1)} ms (import ${imported(ours)}), SDK alone ${round(wall(control), 1)} ms (import ${imported(control)}), empty ${round(wall(empty), 1)} ms (import ${imported(empty)}); CPU time (user + system) above the empty handler's: ours +${cpuAbove(ours)} ms, SDK alone +${cpuAbove(control)} ms (steadier than wall time on a busy machine); ${built.map(size).join("; ")}`,
    },
    {
      id: `sdk-floor-own-share-${label}`,
      title: `cold start (${label}): what our own code adds to the SDK (ours above the SDK alone) vs. what the SDK adds to an empty handler, CPU time`,
      unit: "ms",
      ours: ownShare,
      baseline: { name: "the SDK alone above the empty handler (CPU time)", value: cpuAbove(control) },
      ratio: round(cpuAbove(control) / ownShare, 2),
      target: "our own code costs a cold start less than the SDK it runs",
      met: ownShare < cpuAbove(control),
      note: `CPU time (user + system) medians: ours ${round(cpu(ours), 1)} ms, SDK alone ${round(cpu(control), 1)} ms, empty ${round(cpu(empty), 1)} ms; ours runs the SDK's low-level Server, the control its McpServer (what a handler written from the SDK's examples loads)`,
    },
    {
      id: `sdk-floor-warm-call-${label}`,
      title: `warm tools/call (GetServerInfo) through our handler at the production defaults (its request line written) vs. the SDK-alone control answering the same call (${label})`,
      unit: "ms",
      ours: { p50: w.ours.p50, p99: w.ours.p99, n: w.ours.n },
      baseline: {
        name: "SDK alone (no line)",
        value: { p50: w.control.p50, p99: w.control.p99, n: w.control.n },
      },
      ratio: warmRatio,
      target: "≥ 1× (no slower than the SDK alone)",
      met: warmRatio >= 1,
      note: `answers ${w.ours.bytes} and ${w.control.bytes} bytes (the same text); the first tenth of each side's samples dropped as warm-up`,
    },
  ];
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), "pml-floor-"));
  try {
    const built = [
      await build(ctx.root, dir, "ours", "src/lambda/handler.ts"),
      await build(ctx.root, dir, "control", "test/bench/sdkControl.ts"),
      await build(ctx.root, dir, "empty", {
        source: 'export const handler = async () => ({ statusCode: 200, body: "{}" });\n',
      }),
    ];
    if (ctx.base !== undefined) {
      const base = await buildRevision(ctx.root, dir, ctx.base);
      if (typeof base === "string") console.warn(`sdkFloor: no base side, ${base}`);
      else built.push(base);
    }
    const rounds = { iterations: ctx.quick ? 3 : 21, warmup: ctx.quick ? 1 : 2 };
    const warmRounds = ctx.quick ? 200 : 4000;
    const nodes: { node: string; label: string }[] = [
      { node: process.execPath, label: `Node ${process.version}` },
    ];
    const other = ctx.node ? { node: ctx.node, version: "" } : await node24();
    if ("node" in other) {
      const { stdout } = await runOk(other.node, ["-p", "process.version"], { timeoutMs: 20_000 });
      nodes.push({ node: other.node, label: `Node ${stdout.trim()}` });
    }
    const figures: Figure[] = [];
    for (const { node, label } of nodes) {
      const sides = await cold(node, built, rounds);
      const w = await warm(node, built[0] as Built, built[1] as Built, warmRounds);
      figures.push(...figuresFor(label, built, sides, w, ctx.base));
    }
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
