// Before/after in one run: the handler of a git revision against the working tree's, through the same
// warm requests as benchmark figure 1, interleaved in one process. Run with `npm run bench:compare --
// [revision] [--log-level=INFO] [--iterations=5000]`; the revision defaults to HEAD (the last commit
// against uncommitted changes). Each side is bundled with esbuild from its own handler entry.
// The handlers log to stdout, which (as in Lambda) is a pipe read by this script's parent process;
// results go to stderr, one JSON line per case.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) =>
  args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

if (process.env.BENCH_COMPARE_CHILD !== undefined) {
  await measure(process.env.BENCH_COMPARE_CHILD.split("\n"));
} else {
  const revision = args.find((arg) => !arg.startsWith("--")) ?? "HEAD";
  const work = join(root, "node_modules", ".cache", "bench-compare");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, "base"), { recursive: true });
  // The revision's sources beside the working tree's node_modules, so both resolve the same packages;
  // its scripts and view too, which src/ imports to build the chart worker and the view's page.
  const paths = ["src", "tools", "scripts", "view", "package.json"];
  const archive = execFileSync("git", ["archive", "--format=tar", revision, ...paths], {
    cwd: root,
    maxBuffer: 64 * 2 ** 20,
  });
  execFileSync("tar", ["-x", "-C", join(work, "base")], { input: archive });
  const { build } = await import("esbuild");
  const bundle = async (entry, name) => {
    const outfile = join(work, `${name}.mjs`);
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile,
      logLevel: "warning",
      nodePaths: [join(root, "node_modules")],
      banner: {
        js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);",
      },
    });
    return outfile;
  };
  // The entry moved into src/lambda/ (issue 39); an older revision has it at the root of src/.
  const entryIn = (tree) =>
    [join(tree, "src", "lambda", "handler.ts"), join(tree, "src", "handler.ts")].find((path) =>
      existsSync(path),
    );
  const bundles = [await bundle(entryIn(join(work, "base")), "base"), await bundle(entryIn(root), "head")];
  console.error(JSON.stringify({ base: revision, head: "working tree" }));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    env: {
      ...process.env,
      BENCH_COMPARE_CHILD: bundles.join("\n"),
      LOG_LEVEL: option("log-level", "INFO"),
      PROMETHEUS_URL: "http://127.0.0.1:9",
      PROMETHEUS_AUTH: "none",
      AWS_REGION: "us-east-1",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout.resume();
  const code = await new Promise((resolve) => child.on("close", resolve));
  rmSync(work, { recursive: true, force: true });
  process.exitCode = code ?? 1;
}

/**
 * Between two requests, untimed, what Lambda's runtime gives a function between invocations: the event
 * loop turns and what the handler logged leaves the process. (The loop alone runs on microtasks only:
 * once the pipe is full, Node would queue every further log line in memory, unwritten, and a write
 * would cost a copy rather than the system call it costs in Lambda.)
 */
async function settle() {
  await new Promise(setImmediate);
  while (process.stdout.writableLength > 0) await new Promise((resolve) => setTimeout(resolve, 1));
}

async function measure(bundles) {
  const [base, head] = await Promise.all(
    bundles.map(async (file) => (await import(pathToFileURL(file))).handler),
  );
  const iterations = Number(option("iterations", "5000"));
  const warmup = Math.ceil(iterations / 10);
  const cases = {
    "tools/list": { jsonrpc: "2.0", id: 1, method: "tools/list" },
    "tools/call GetServerInfo": {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "GetServerInfo", arguments: {} },
    },
  };
  const context = () => ({ getRemainingTimeInMillis: () => 60_000, awsRequestId: "bench" });
  for (const [name, body] of Object.entries(cases)) {
    const event = {
      version: "2.0",
      rawPath: "/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      requestContext: { requestId: "bench", http: { method: "POST", path: "/mcp" } },
      body: JSON.stringify(body),
      isBase64Encoded: false,
    };
    const run = (handler) => async () => {
      const result = await handler(event, context());
      if (result.statusCode !== 200) throw new Error(`${name} answered ${result.statusCode}`);
    };
    const samples = { base: [], head: [] };
    for (let i = 0; i < warmup + iterations; i++) {
      for (const [side, handler] of i % 2 === 0
        ? [
            ["base", base],
            ["head", head],
          ]
        : [
            ["head", head],
            ["base", base],
          ]) {
        const started = performance.now();
        await run(handler)();
        if (i >= warmup) samples[side].push(performance.now() - started);
        await settle();
      }
    }
    const p = (values, q) => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)];
    const result = {
      case: name,
      logLevel: process.env.LOG_LEVEL,
      n: iterations,
      base: { p50: p(samples.base, 0.5), p99: p(samples.base, 0.99) },
      head: { p50: p(samples.head, 0.5), p99: p(samples.head, 0.99) },
    };
    result.speedup = result.base.p50 / result.head.p50;
    console.error(JSON.stringify(result));
  }
}
