// Run by test/support/streamWriter.ts in a child process, bundled by esbuild:
//   node streamWriterProbe.mjs <environment as JSON> <event as JSON> <remaining ms>
// One invocation of the streaming entry, as a Lambda container runs it (its sessions and stream events
// wherever the environment says), which the test kills mid-answer: an invocation that dies. Prints one
// JSON line with its answer should it live to give one.
import { loadConfig } from "../../src/config/index.js";
import { createStreamingHandler } from "../../src/lambda/streaming.js";
import { lambdaContext } from "./events.js";
import { asBuffered, installStreamingRuntime } from "./lambdaStreaming.js";

const [environment = "{}", event = "{}", remainingMs = "30000"] = process.argv.slice(2);
installStreamingRuntime();
const handler = asBuffered(
  createStreamingHandler(
    loadConfig({
      LOG_LEVEL: "SILENT",
      METRICS: "off",
      ...(JSON.parse(environment) as Record<string, string>),
    }),
  ) as never,
);
const answer = await handler(JSON.parse(event), lambdaContext(Number(remainingMs)));
process.stdout.write(`${JSON.stringify(answer)}\n`);
