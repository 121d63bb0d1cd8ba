// `npm run bench` (full, writes BENCHMARKS.md) and `npm run bench -- --quick` (CI: proves it works).
// Prints one JSON line per figure.
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { startAmpStack } from "../support/ampStack.js";
import { childReply } from "./child.js";
import { type BenchContext, type Handler, REGION, WORKSPACE_ID } from "./context.js";
import { CHILD_JOBS, FIGURES } from "./figures/index.js";
import { type Figure, markdownTable, value } from "./report.js";

const quick = process.argv.includes("--quick");
const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
const node = process.argv.find((arg) => arg.startsWith("--node="))?.slice("--node=".length);
const base = process.argv.find((arg) => arg.startsWith("--base="))?.slice("--base=".length);
const root = fileURLToPath(new URL("../../..", import.meta.url));

const job = process.env.BENCH_CHILD;
if (job !== undefined) await child(job);
else await main();

/** A figure's job in a child process (child.ts): its environment is the parent's choice, left as it is. */
async function child(name: string): Promise<void> {
  const run = CHILD_JOBS[name];
  if (run === undefined) throw new Error(`no bench child job ${name}`);
  const { handler } = (await import("../../src/lambda/handler.js")) as unknown as { handler: Handler };
  await childReply(await run({ quick, handler, prometheusUrl: process.env.PROMETHEUS_URL ?? "" }));
  process.exit(0);
}

async function main(): Promise<void> {
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: "AKIDTESTFAKE",
    AWS_SECRET_ACCESS_KEY: "test-secret-not-real",
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_REGION: REGION,
    LOG_LEVEL: "SILENT",
    METRICS: "off",
    PROMETHEUS_AUTH: "sigv4",
  });
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;

  const { prometheus, proxy, amp, close } = await startAmpStack(REGION, [
    { workspaceId: WORKSPACE_ID, status: "ACTIVE" },
  ]);
  process.env.PROMETHEUS_URL = prometheus.url;
  process.env.AMP_ENDPOINT = amp.url;
  const { handler } = (await import("../../src/lambda/handler.js")) as unknown as { handler: Handler };
  const ctx: BenchContext = { quick, root, node, base, handler, prometheusUrl: prometheus.url, proxy, amp };

  const figures: Figure[] = [];
  try {
    for (const [name, figure] of Object.entries(FIGURES)) {
      if (only !== undefined && name !== only) continue;
      for (const result of await figure(ctx)) {
        figures.push(result);
        console.log(JSON.stringify({ ...result, ours: result.ours, ratio: result.ratio }));
      }
    }
  } finally {
    await close();
  }

  const missed = figures.filter((f) => !f.met);
  console.log(
    JSON.stringify({
      summary: `${figures.length - missed.length} of ${figures.length} targets met`,
      missed: missed.map((f) => f.id),
    }),
  );
  if (!quick && only === undefined) writeReport(figures);
}

function writeReport(results: Figure[]): void {
  const path = `${root}BENCHMARKS.md`;
  const marker = "<!-- findings: kept across runs -->";
  let findings = `${marker}\n`;
  try {
    const previous = readFileSync(path, "utf8");
    if (previous.includes(marker)) findings = previous.slice(previous.indexOf(marker));
  } catch {
    // first run
  }
  const cpu = cpus();
  const notes = results.filter((f) => f.note).map((f) => `- **${f.id}**: ${f.note}`);
  const text = `# Benchmarks

Measured by \`npm run bench\` (code in \`test/bench/\`) on one machine in one run: every comparison runs
both sides interleaved in one process after a warm-up and reports the median (p50) and p99; ratios
compare medians. Absolute times vary with the machine; the ratios are what we hold ourselves to.
CI runs \`npm run bench -- --quick\` (a few iterations) only to prove the benchmarks work: no timing
is asserted anywhere in the tests.

Machine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB,
Node ${process.version} (Lambda runs Node 24 on arm64), ${new Date().toISOString().slice(0, 10)}.
The handler runs with \`LOG_LEVEL=SILENT\` and \`METRICS=off\` (it writes nothing), except in the
\`-info\` rows of figure 1: those run it at the production defaults (\`LOG_LEVEL=INFO\`, metrics on) in
a child process whose stdout is a pipe read by the benchmark, as in Lambda, and their notes say what
the request's log line costs.

${markdownTable(results)}

${notes.join("\n")}

Reproduce: \`npm ci && npm run bench\` (needs the Debian package \`prometheus\`, which \`.ci/run\`
installs; everything else runs on 127.0.0.1).

${findings}`;
  writeFileSync(path, text);
  console.log(JSON.stringify({ wrote: path, figures: results.map((f) => [f.id, value(f.ours)]) }));
}
