// Run by test/integration/tracing.test.ts in a child process, bundled by esbuild (packages external,
// code splitting: as in the deployed function, the tracer is a chunk of its own):
//   node tracingProbe.js <steps as JSON>
// The environment is the function's (TRACING, PROMETHEUS_URL, LAMBDA_TASK_ROOT, AWS_XRAY_DAEMON_ADDRESS…).
// Imports the Lambda entry point (src/lambda/handler.ts) and invokes it once per step, each with the X-Ray
// trace header Lambda would give that invocation (`_X_AMZN_TRACE_ID`), then prints one JSON line: the
// answers, and whether the X-Ray SDK and Powertools Tracer were loaded.
import { createRequire } from "node:module";
import type { HttpCall } from "./events.js";
import { httpEvent, lambdaContext } from "./events.js";

export interface ProbeStep {
  /** `_X_AMZN_TRACE_ID` during the invocation. */
  xray: string;
  http: HttpCall;
  /** Send the `mcp-session-id` the last answer gave. */
  inSession?: boolean;
}

export interface ProbeAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export interface ProbeOutput {
  answers: ProbeAnswer[];
  /** aws-xray-sdk-core (CommonJS) is in the module cache. */
  xraySdkLoaded: boolean;
  /** Powertools Tracer's module ran: it sets AWS_XRAY_CONTEXT_MISSING when it is unset. */
  tracerImported: boolean;
}

const steps = JSON.parse(process.argv[2] ?? "[]") as ProbeStep[];
const { handler } = await import("../../src/lambda/handler.js");
const invoke = handler as unknown as (event: unknown, context: unknown) => Promise<ProbeAnswer>;

const answers: ProbeAnswer[] = [];
let sessionId: string | undefined;
for (const step of steps) {
  process.env._X_AMZN_TRACE_ID = step.xray;
  const headers = {
    ...step.http.headers,
    ...(step.inSession && sessionId ? { "mcp-session-id": sessionId } : {}),
  };
  const answer = await invoke(httpEvent("v2", { ...step.http, headers }), lambdaContext(30_000));
  sessionId = answer.headers["mcp-session-id"] ?? answer.headers["Mcp-Session-Id"] ?? sessionId;
  answers.push(answer);
}
delete process.env._X_AMZN_TRACE_ID;

const require = createRequire(import.meta.url);
const output: ProbeOutput = {
  answers,
  xraySdkLoaded: Object.keys(require.cache).some((path) => /[\\/]aws-xray-sdk-core[\\/]/.test(path)),
  tracerImported: process.env.AWS_XRAY_CONTEXT_MISSING !== undefined,
};
process.stdout.write(`\n${JSON.stringify(output)}\n`);
