// Figure 3: cold start of the deployment artifact. The real `serverless package` (on a private copy of
// the service) gives mcp.zip; it is unzipped as Lambda lays it out (the zip's files alone, no
// package.json, no node_modules). Each sample is a fresh `node -e` that imports the handler the packaged
// template names (Lambda's init phase) and answers one `tools/list` (the first invocation), with the
// function's packaged environment; the baseline is the same `node -e` with an empty handler. The two
// alternate, and the figure is the difference of their medians. Also the artifact's size, and (full
// mode) where a cold start spends its CPU.

import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { slsEnv } from "../../serverless/sls.js";
import { readZip } from "../../serverless/zip.js";
import { runOk } from "../../support/childProcess.js";
import { httpEvent } from "../../support/events.js";
import type { BenchContext } from "../context.js";
import { round, type Stats, stats } from "../measure.js";
import type { Figure } from "../report.js";

const CHILD_TIMEOUT_MS = 20_000;
/** Long enough for npm to download Node 24 once (it is cached afterwards). */
const NODE24_TIMEOUT_MS = 300_000;
const PACKAGE_TIMEOUT_MS = 180_000;
/** The function measured, as serverless.yml names it (its zip is `<name>.zip`). */
const FUNCTION_NAME = "mcp";
const NOT_COPIED = new Set([
  ".git",
  "node_modules",
  ".serverless",
  ".esbuild",
  ".build",
  ".build-invoke-local",
  "coverage",
  ".tmp",
  "dist",
  ".out",
]);

/** What `serverless package` wrote for the function. */
interface Packaged {
  zip: Buffer;
  /** `src/lambda/handler.handler`: module path (no extension) and export. */
  handler: string;
  runtime: string;
  memoryMb: number;
  /** The function's environment in the packaged template, references (Ref, Fn::…) as placeholders. */
  environment: Record<string, string>;
}

/**
 * Runs the real `serverless package` on a private copy of the service under `root` (`package` writes
 * and deletes build folders in the service directory) and returns the function's zip and settings
 * from the packaged CloudFormation template. (Not sls.ts's runSls/copyService: they locate the
 * repository from their own file, which is wrong once bundled.)
 */
async function packageFunction(root: string, dir: string): Promise<Packaged> {
  const service = join(dir, "service");
  await cp(root, service, {
    recursive: true,
    filter: (source) => source === root || !NOT_COPIED.has(basename(source)),
  });
  await symlink(join(root, "node_modules"), join(service, "node_modules"), "dir");
  const out = join(dir, "package");
  const bin = join(root, "node_modules", "serverless", "bin", "serverless.js");
  const { stdout, stderr } = await runOk(process.execPath, [bin, "package", "--package", out], {
    cwd: service,
    env: slsEnv(),
    timeoutMs: PACKAGE_TIMEOUT_MS,
  });
  let zip: Buffer;
  let template: { Resources?: Record<string, { Type?: string; Properties?: Record<string, unknown> }> };
  try {
    zip = await readFile(join(out, `${FUNCTION_NAME}.zip`));
    template = JSON.parse(await readFile(join(out, "cloudformation-template-update-stack.json"), "utf8"));
  } catch {
    throw new Error(`serverless package wrote no ${FUNCTION_NAME}.zip: ${(stdout + stderr).slice(-2000)}`);
  }
  const fn = Object.values(template.Resources ?? {}).find(
    (resource) =>
      resource.Type === "AWS::Lambda::Function" &&
      JSON.stringify(resource.Properties?.Code ?? "").includes(`${FUNCTION_NAME}.zip`),
  )?.Properties;
  if (!fn || typeof fn.Handler !== "string") throw new Error(`no function ${FUNCTION_NAME} in the template`);
  const variables = (fn.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    environment[name] = typeof value === "string" ? value : `cold-start-${name.toLowerCase()}`;
  }
  return {
    zip,
    handler: fn.Handler,
    runtime: String(fn.Runtime ?? "?"),
    memoryMb: Number(fn.MemorySize ?? 128),
    environment,
  };
}

/** The file Lambda's Node runtime loads for `handler` (it tries .js, .mjs, .cjs), and the export. */
function entryOf(handler: string, files: ReadonlyMap<string, Buffer>): { file: string; name: string } {
  const dot = handler.lastIndexOf(".");
  const module = handler.slice(0, dot);
  const file = [".js", ".mjs", ".cjs"].map((ext) => module + ext).find((candidate) => files.has(candidate));
  if (file === undefined) throw new Error(`${FUNCTION_NAME}.zip has no ${module}.js/.mjs/.cjs`);
  return { file, name: handler.slice(dot + 1) };
}

/** The entry and every module it imports statically: what Lambda's init loads (dynamic imports load later). */
export function loadedAtInit(entry: string, files: ReadonlyMap<string, Buffer>): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    const source = files.get(name);
    if (seen.has(name) || source === undefined) return;
    seen.add(name);
    // esbuild's output: `import{a}from"./chunk-X.mjs"`, `import"./chunk-X.mjs"` (not `import("…")`).
    for (const [, spec] of source
      .toString("utf8")
      .matchAll(/(?:\bfrom|\bimport)\s*["'](\.\.?\/[^"']+)["']/g)) {
      visit(join(dirname(name), spec as string));
    }
  };
  visit(entry);
  return [...seen];
}

/**
 * As the Lambda runtime starts a function: its packaged environment and the variables Lambda sets,
 * fake credentials (nothing here reaches AWS: tools/list makes no upstream call), no NODE_OPTIONS.
 */
function lambdaEnv(packaged: Packaged, taskRoot: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    ...packaged.environment,
    AWS_REGION: "us-east-1",
    AWS_DEFAULT_REGION: "us-east-1",
    AWS_EXECUTION_ENV: `AWS_Lambda_${packaged.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: "prometheus-mcp-lambda-cold-mcp",
    AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(packaged.memoryMb),
    AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
    LAMBDA_TASK_ROOT: taskRoot,
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_ACCESS_KEY_ID: "AKIDTESTFAKE",
    AWS_SECRET_ACCESS_KEY: "test-secret-not-real",
    AWS_SESSION_TOKEN: "test-session-token",
  };
}

/**
 * The `node -e` script: imports the handler module named by argv[1] (export argv[2]), answers one
 * tools/list, checks the answer (argv[3]: "tools" wants ours, "one" one tool, "any" accepts the
 * baseline's), and prints one line with
 * its own timings: import, first request, and the process's CPU time (user + system, all threads).
 */
export function coldScript(): string {
  const event = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    requestId: "cold-start",
  });
  return `import { writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [, file, exported, expect] = process.argv;
const started = performance.now();
const handler = (await import(pathToFileURL(file).href))[exported];
const imported = performance.now();
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: "prometheus-mcp-lambda-cold-mcp",
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:prometheus-mcp-lambda-cold-mcp",
  memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
  awsRequestId: "cold-start-1",
  logGroupName: "/aws/lambda/prometheus-mcp-lambda-cold-mcp",
  logStreamName: "cold",
  getRemainingTimeInMillis: () => 29000,
  done() {}, fail() {}, succeed() {},
};
const result = await handler(${JSON.stringify(event)}, context);
const answered = performance.now();
let tools;
try { tools = JSON.parse(result.body).result.tools; } catch {}
const ok = result?.statusCode === 200 && (expect === "any" || tools?.length >= (expect === "one" ? 1 : 5));
const cpu = process.cpuUsage();
writeSync(1, "\\n@@cold " + JSON.stringify({ ok, importMs: imported - started, requestMs: answered - imported, cpuMs: (cpu.user + cpu.system) / 1000 }) + "\\n");
process.exit(ok ? 0 : 1);
`;
}

/** What the cold script checks in the answer: our tools, one tool (the SDK-alone control), or anything. */
export type Expect = "tools" | "one" | "any";

/** What a child reported about itself. */
export interface Report {
  importMs: number;
  requestMs: number;
  cpuMs: number;
}

/** How a cold start runs: the `node -e` script, its environment and working directory (Lambda's task root). */
export interface Launch {
  script: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The Node binary (default: the one running the bench). */
  node?: string;
}

/** Node 24, the Lambda runtime's major version, as npm has it (`npx -p node@24`); undefined when npm cannot get it. */
export async function node24(): Promise<{ node: string; version: string } | { unavailable: string }> {
  try {
    const { stdout } = await runOk(
      "npx",
      ["-y", "-p", "node@24", "--", "node", "-p", 'process.execPath + " " + process.version'],
      { timeoutMs: NODE24_TIMEOUT_MS },
    );
    const [node, version] = stdout.trim().split("\n").pop()?.split(" ") ?? [];
    return node && version ? { node, version } : { unavailable: `npx printed ${stdout.slice(-200)}` };
  } catch (error) {
    return { unavailable: error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error) };
  }
}

/**
 * The cold start on Node 24: ours and the empty handler, and ours again reading a V8 compile cache
 * (Node 22+, NODE_COMPILE_CACHE; portable, NODE_COMPILE_CACHE_PORTABLE=1) that the same Node made from a
 * copy of the task root elsewhere, as one made at package time would be. Reported, not shipped: see
 * BENCHMARKS.md, "Cold start".
 */
async function onNode24(
  launch: Launch,
  dir: string,
  task: string,
  entry: { file: string; name: string },
  empty: string,
  rounds: { iterations: number; warmup: number },
): Promise<string> {
  const found = await node24();
  if ("unavailable" in found) return `Node 24 not measured (${found.unavailable})`;
  const on24: Launch = { ...launch, node: found.node };
  // The cache is made from another directory: only its layout relative to the cache must match.
  const elsewhere = join(dir, "task-elsewhere");
  await cp(task, elsewhere, { recursive: true });
  const cacheEnv = { NODE_COMPILE_CACHE_PORTABLE: "1" };
  await coldStart(
    {
      ...on24,
      cwd: elsewhere,
      env: { ...launch.env, ...cacheEnv, NODE_COMPILE_CACHE: join(elsewhere, ".cache") },
    },
    join(elsewhere, entry.file),
    entry.name,
    "tools",
  );
  await cp(join(elsewhere, ".cache"), join(task, ".cache"), { recursive: true });
  const cached: Launch = {
    ...on24,
    env: { ...launch.env, ...cacheEnv, NODE_COMPILE_CACHE: join(task, ".cache") },
  };
  const side = (run: () => Promise<Report>): Side => ({ run, wall: [], reports: [] });
  const ours = side(() => coldStart(on24, join(task, entry.file), entry.name, "tools"));
  const withCache = side(() => coldStart(cached, join(task, entry.file), entry.name, "tools"));
  const bare = side(() => coldStart(on24, empty, "handler", "any"));
  await alternate([ours, withCache, bare], rounds.iterations, rounds.warmup);
  const over = (s: Side) => round(median(s.wall) - median(bare.wall), 1);
  return `on Node ${found.version} (the Lambda runtime's major version): difference of medians ${over(ours)} ms; with a V8 compile cache made by that Node (portable) ${over(withCache)} ms`;
}

/** Runs one cold start of `file` (export `name`) to completion; rejects on a failure or after the timeout. */
export async function coldStart(
  launch: Launch,
  file: string,
  name: string,
  expect: Expect,
  extraArgs: string[] = [],
): Promise<Report> {
  const { stdout } = await runOk(
    launch.node ?? process.execPath,
    [...extraArgs, "--input-type=module", "-e", launch.script, file, name, expect],
    { cwd: launch.cwd, env: launch.env, timeoutMs: CHILD_TIMEOUT_MS },
  );
  const line = stdout
    .split("\n")
    .filter((l) => l.startsWith("@@cold "))
    .pop();
  if (line === undefined) throw new Error(`cold start of ${file} reported nothing: ${stdout.slice(-1000)}`);
  return JSON.parse(line.slice("@@cold ".length)) as Report;
}

export interface Side {
  run: () => Promise<Report | undefined>;
  wall: number[];
  reports: Report[];
}

/** Every side once per round, the first side rotating; the first `warmup` rounds are not kept. */
export async function alternate(sides: Side[], iterations: number, warmup: number): Promise<void> {
  for (let i = 0; i < warmup + iterations; i++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(i + k) % sides.length] as Side;
      const t = performance.now();
      const report = await side.run();
      const ms = performance.now() - t;
      if (i < warmup) continue;
      side.wall.push(ms);
      if (report) side.reports.push(report);
    }
  }
}

export function median(values: number[]): number {
  return stats(values).p50;
}

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
}

/** The top `count` contributors of self time in a .cpuprofile, by file. */
export function topSelfTime(
  profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] },
  count: number,
): string {
  const where = new Map<number, string>();
  for (const n of profile.nodes) {
    const { url, functionName } = n.callFrame;
    let key = functionName || "(anonymous)";
    if (functionName === "compileSourceTextModule") key = "compiling ES modules";
    else if (functionName === "compileForInternalLoader") key = "loading Node built-ins";
    else if (url.startsWith("node:")) key = "other Node internals";
    else if (url) key = `running ${basename(url)}`;
    where.set(n.id, key);
  }
  const self = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const key = where.get(id) ?? "?";
    // timeDeltas[i] is the time since the previous sample: it belongs to the sample before.
    const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    self.set(key, (self.get(key) ?? 0) + ms);
  });
  return [...self]
    .filter(([key]) => key !== "(idle)")
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `${key} ${ms.toFixed(0)} ms`)
    .join(", ");
}

/** One cold start under --cpu-prof; the profile is written to `profiles`. */
async function profileColdStart(
  profiles: string,
  start: (extraArgs: string[]) => Promise<Report>,
): Promise<string> {
  await mkdir(profiles);
  await start(["--cpu-prof", "--cpu-prof-interval", "200", "--cpu-prof-dir", profiles]);
  const [file] = await readdir(profiles);
  if (!file) return "no CPU profile written";
  const profile = JSON.parse(await readFile(join(profiles, file), "utf8"));
  return `self time (--cpu-prof): ${topSelfTime(profile, 3)}`;
}

const kb = (bytes: number) => round(bytes / 1024, 1);

/** The chart renderer's files, copied beside its chunk (scripts/esbuild-plugins.cjs, chartAssetsBeside). */
const CHART_FILES = ["resvg.wasm", "DejaVuSans.ttf"];
/**
 * What only the chunks of PlotRangeQuery's renderer and of the MCP Apps view hold: the legend of the
 * chart's band (src/charts/render.ts, in the chunk PlotRangeQuery imports), ECharts' drawing layer,
 * resvg's WebAssembly glue, the view page's title.
 */
const CHART_MARKERS = ["more series (their range)", "zrender", "__wbindgen", "<title>Range chart</title>"];

/** The zip's files that only a chart or the view loads. */
function chartOnly(files: ReadonlyMap<string, Buffer>): string[] {
  return [...files]
    .filter(
      ([name, content]) =>
        CHART_FILES.includes(basename(name)) || CHART_MARKERS.some((marker) => content.includes(marker)),
    )
    .map(([name]) => name);
}

/**
 * Cold starts (one tools/list) of the zip as packaged and of the same zip without the files only a
 * chart or the view loads, alternating: the renderer and the page are chunks of their own, so their
 * presence costs the other tools' cold start nothing (and were one imported at init, the zip without
 * them would not start at all).
 */
async function withAndWithoutCharts(
  files: ReadonlyMap<string, Buffer>,
  packaged: Packaged,
  launch: Launch,
  task: string,
  entry: { file: string; name: string },
  rounds: { iterations: number; warmup: number },
): Promise<Figure> {
  const removed = chartOnly(files);
  const without = `${task}-without-charts`;
  await cp(task, without, { recursive: true });
  for (const name of removed) await rm(join(without, name));
  const side = (root: string): Side => ({
    run: () =>
      coldStart(
        { ...launch, cwd: root, env: lambdaEnv(packaged, root) },
        join(root, entry.file),
        entry.name,
        "tools",
      ),
    wall: [],
    reports: [],
  });
  const withCharts = side(task);
  const withoutCharts = side(without);
  await alternate([withCharts, withoutCharts], rounds.iterations, rounds.warmup);
  const ours = stats(withCharts.wall);
  const baseline = stats(withoutCharts.wall);
  const ratio = round(baseline.p50 / ours.p50, 2);
  const removedBytes = removed.reduce((sum, name) => sum + (files.get(name)?.length ?? 0), 0);
  return {
    id: "cold-start-charts-present",
    title:
      "cold start (one tools/list) of mcp.zip as packaged vs. the same without the chart renderer's and the view's chunks and files",
    unit: "ms",
    ours,
    baseline: { name: "without the chart chunks", value: baseline },
    ratio,
    target: "1.00× within the noise (≥ 0.95): the other tools do not pay for charts",
    met: ratio >= 0.95,
    note: `${removed.length} files (${kb(removedBytes)} KB unzipped) removed: ${removed.map((name) => basename(name)).join(", ")}`,
  };
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), "pml-cold-"));
  try {
    const packaged = await packageFunction(ctx.root, dir);
    const files = readZip(packaged.zip);
    const entry = entryOf(packaged.handler, files);
    const initFiles = loadedAtInit(entry.file, files);
    const bytes = (names: Iterable<string>) =>
      [...names].reduce((n, f) => n + (files.get(f)?.length ?? 0), 0);

    // As in Lambda's /var/task: the zip's files alone. The baseline's empty handler lives outside it.
    const task = join(dir, "task");
    for (const [name, content] of files) {
      await mkdir(dirname(join(task, name)), { recursive: true });
      await writeFile(join(task, name), content);
    }
    const empty = join(dir, "baseline", "handler.mjs");
    await mkdir(dirname(empty));
    await writeFile(empty, 'export const handler = async () => ({ statusCode: 200, body: "{}" });\n');

    const launch: Launch = { script: coldScript(), env: lambdaEnv(packaged, task), cwd: task };
    const start = (extraArgs: string[] = []) =>
      coldStart(launch, join(task, entry.file), entry.name, "tools", extraArgs);
    const ours: Side = { run: () => start(), wall: [], reports: [] };
    const bare: Side = { run: () => coldStart(launch, empty, "handler", "any"), wall: [], reports: [] };
    const nodeOnly: Side = {
      run: async () => {
        await runOk(process.execPath, ["-e", "0"], {
          cwd: launch.cwd,
          env: launch.env,
          timeoutMs: CHILD_TIMEOUT_MS,
        });
        return undefined;
      },
      wall: [],
      reports: [],
    };
    const rounds = { iterations: ctx.quick ? 3 : 40, warmup: ctx.quick ? 1 : 3 };
    await alternate([ours, bare, nodeOnly], rounds.iterations, rounds.warmup);

    const cold: Stats = stats(ours.wall);
    const baseline: Stats = stats(bare.wall);
    const diff = round(cold.p50 - baseline.p50, 1);
    const of = (side: Side, key: keyof Report) => median(side.reports.map((r) => r[key]));
    const cpuDiff = round(of(ours, "cpuMs") - of(bare, "cpuMs"), 1);
    const profile = ctx.quick ? undefined : await profileColdStart(join(dir, "profiles"), start);
    const node24Note = await onNode24(launch, dir, task, entry, empty, rounds);
    const chartsPresent = await withAndWithoutCharts(files, packaged, launch, task, entry, rounds);
    const zipKb = kb(packaged.zip.length);
    // Deflated as the zip stores them (its entries are deflated one by one).
    const chartsZippedKb = kb(
      chartOnly(files).reduce(
        (sum, name) => sum + deflateRawSync(files.get(name) ?? Buffer.alloc(0)).length,
        0,
      ),
    );
    return [
      {
        id: "cold-start",
        title: `cold start of the packaged function: node importing ${entry.file} from mcp.zip + one tools/list vs. the same with an empty handler`,
        unit: "ms",
        ours: cold,
        baseline: { name: "empty handler", value: baseline },
        target: "≤ 50 ms above bare Node running an empty handler (difference of medians)",
        met: diff <= 50,
        note: [
          `difference of medians ${diff} ms (wall, spawn to exit; Node ${process.version}, Lambda runs ${packaged.runtime})`,
          `inside the process (medians): import ${round(of(ours, "importMs"), 1)} ms (empty handler ${round(of(bare, "importMs"), 1)}), first tools/list ${round(of(ours, "requestMs"), 1)} ms`,
          `CPU time (user + system, all threads) ${round(of(ours, "cpuMs"), 1)} ms vs ${round(of(bare, "cpuMs"), 1)}: +${cpuDiff} ms`,
          `bare \`node -e 0\` p50 ${round(median(nodeOnly.wall), 1)} ms`,
          node24Note,
          `the packaged environment (LOG_LEVEL ${packaged.environment.LOG_LEVEL ?? "unset"}, METRICS ${packaged.environment.METRICS ?? "unset"}) plus Lambda's variables`,
          profile,
        ]
          .filter(Boolean)
          .join("; "),
      },
      chartsPresent,
      {
        id: "zip-size",
        title: "deployment package size (mcp.zip from serverless package)",
        unit: "KB",
        ours: zipKb,
        target: "< 1 MB (1024 KB) without the files only charts load (renderer, font, view: issue 26)",
        met: zipKb - chartsZippedKb < 1024,
        note: `unzipped ${kb(bytes(files.keys()))} KB in ${files.size} files; loaded at init (${entry.file} and its static imports): ${kb(bytes(initFiles))} KB in ${initFiles.length} files; the files only charts load ${chartsZippedKb} KB deflated (${kb(bytes(chartOnly(files)))} KB unzipped)`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
