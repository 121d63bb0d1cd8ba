// Figure 3: cold start. Whole-process time for a fresh Node to import the deployed bundle (from the
// real `serverless package`) and answer one `tools/list`, against a bare `node -e 0`, interleaved.
// Also the size of the deployment zip, and (full mode) where a cold start spends its CPU.

import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { httpEvent } from "../../helpers/events.js";
import { slsEnv } from "../../serverless/sls.js";
import { readZip } from "../../serverless/zip.js";
import { runOk } from "../../support/childProcess.js";
import type { BenchContext } from "../context.js";
import { interleave, round } from "../measure.js";
import type { Figure } from "../report.js";

const CHILD_TIMEOUT_MS = 20_000;
const PACKAGE_TIMEOUT_MS = 180_000;
const NOT_COPIED = new Set([
  ".git",
  "node_modules",
  ".serverless",
  ".esbuild",
  "coverage",
  ".tmp",
  "dist",
  ".out",
]);

/**
 * Runs the real `serverless package` on a private copy of the service under `ctx.root` (`package`
 * writes and deletes build folders in the service directory) and returns mcp.zip. (Not sls.ts's
 * runSls/copyService: they locate the repository from their own file, which is wrong once bundled.)
 */
async function packageZip(root: string, dir: string): Promise<Buffer> {
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
  const output = stdout + stderr;
  try {
    return await readFile(join(out, "mcp.zip"));
  } catch {
    throw new Error(`serverless package wrote no mcp.zip: ${output.slice(-2000)}`);
  }
}

/** A Lambda-like environment: no inherited NODE_OPTIONS or application settings, fake credentials. */
function coldEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LOG_LEVEL: "SILENT",
    AWS_REGION: "us-east-1",
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_ACCESS_KEY_ID: "AKIDTESTFAKE",
    AWS_SECRET_ACCESS_KEY: "test-secret-not-real",
  };
}

function coldScript(): string {
  const event = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  return `import { handler } from "./src/handler.mjs";
const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: "cold",
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:cold",
  memoryLimitInMB: "512",
  awsRequestId: "cold-1",
  logGroupName: "/aws/lambda/cold",
  logStreamName: "cold",
  getRemainingTimeInMillis: () => 30000,
  done() {}, fail() {}, succeed() {},
};
const result = await handler(${JSON.stringify(event)}, context);
const tools = result?.statusCode === 200 ? JSON.parse(result.body).result?.tools : undefined;
process.exit(tools?.length === 5 ? 0 : 1);
`;
}

/** Runs `node <args>` in `cwd` to completion; rejects on a non-zero exit or after the timeout. */
async function node(args: string[], cwd: string): Promise<void> {
  await runOk(process.execPath, args, { cwd, env: coldEnv(), timeoutMs: CHILD_TIMEOUT_MS });
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
    if (functionName === "compileSourceTextModule") key = "compiling ES modules (handler.mjs)";
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

/** One cold start of `fn` (the function directory) under --cpu-prof; profile written to `profiles`. */
async function profileColdStart(fn: string, profiles: string): Promise<string> {
  await mkdir(profiles);
  await node(["--cpu-prof", "--cpu-prof-interval", "200", "--cpu-prof-dir", profiles, "cold.mjs"], fn);
  const [file] = await readdir(profiles);
  if (!file) return "no CPU profile written";
  const profile = JSON.parse(await readFile(join(profiles, file), "utf8"));
  return `self time (--cpu-prof): ${topSelfTime(profile, 3)}`;
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), "pml-cold-"));
  try {
    const zip = await packageZip(ctx.root, dir);
    const entries = readZip(zip);
    if (!entries.has("src/handler.mjs")) throw new Error("mcp.zip has no src/handler.mjs");

    // As on Lambda: the zip's files alone (the handler and its lazily loaded chunks), no package.json.
    const fn = join(dir, "function");
    await mkdir(join(fn, "src"), { recursive: true });
    for (const [name, content] of entries) await writeFile(join(fn, name), content);
    await writeFile(join(fn, "cold.mjs"), coldScript());

    const [cold, bare] = await interleave(
      () => node(["cold.mjs"], fn),
      () => node(["-e", "0"], fn),
      ctx.quick ? 3 : 20,
      ctx.quick ? 1 : 2,
    );
    const diff = round(cold.p50 - bare.p50, 1);
    const profile = ctx.quick ? undefined : await profileColdStart(fn, join(dir, "profiles"));
    const sizeKb = round(zip.length / 1024, 1);
    return [
      {
        id: "cold-start",
        title: "cold start: node importing the deployed bundle + one tools/list vs. bare `node -e 0`",
        unit: "ms",
        ours: cold,
        baseline: { name: "node -e 0", value: bare },
        target: "≤ 50 ms above bare Node (difference of medians)",
        met: diff <= 50,
        note: [
          `difference of medians ${diff} ms; handler.mjs ${round((entries.get("src/handler.mjs")?.length ?? 0) / 1024, 0)} KB, ${entries.size} files`,
          profile,
        ]
          .filter(Boolean)
          .join("; "),
      },
      {
        id: "zip-size",
        title: "deployment package size (mcp.zip from serverless package)",
        unit: "KB",
        ours: sizeKb,
        target: "< 1 MB (1024 KB)",
        met: sizeKb < 1024,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
