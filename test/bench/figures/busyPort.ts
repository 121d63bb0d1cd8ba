// `npm start` with a port in use: how long serverless offline takes to end by itself, with its one line
// naming the port (test/e2e/localStart.test.ts asserts that it does, with a generous bound; the time is
// this figure's). Each sample spawns `serverless offline start` with the HTTP port held by another
// server, from the spawn to the command's end (its output pipes closed).
import { slsEnv } from "../../serverless/sls.js";
import { freePort } from "../../support/net.js";
import { occupy, offlineStartToEnd, release } from "../../support/offlineExit.js";
import type { BenchContext } from "../context.js";
import { stats } from "../measure.js";
import type { Figure } from "../report.js";

/** The wait's limit per run: a run that reaches it fails the figure. */
const BOUND_MS = 60_000;
const TARGET_MS = 5_000;

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const { port: busy, server } = await occupy();
  const samples: number[] = [];
  try {
    for (let run = 0; run < (ctx.quick ? 1 : 5); run++) {
      const args = ["--httpPort", String(busy), "--lambdaPort", String(await freePort())];
      const ended = await offlineStartToEnd(ctx.root, args, slsEnv({ PORT: "", LAMBDA_PORT: "" }), BOUND_MS);
      if (ended.code !== 1) throw new Error(`serverless offline ended with ${ended.code}:\n${ended.output}`);
      samples.push(ended.ms);
    }
  } finally {
    await release(server);
  }
  const ours = stats(samples);
  return [
    {
      id: "busy-port-exit",
      title: "`npm start` (serverless offline start) with its HTTP port in use: spawn to its end, status 1",
      unit: "ms",
      ours,
      target: `< ${TARGET_MS / 1000} s (p99)`,
      met: ours.p99 < TARGET_MS,
    },
  ];
}
