// Run by test/integration/tracing.test.ts in a child process with Lambda's environment, bundled by
// esbuild: opens an invocation's subsegment, a tool's inside it and a call's inside that, through
// src/tracing/xray.ts, and closes them innermost first (`in-order`) or the invocation's first
// (`invocation-first`: a request answered at its deadline while its tool call still ran), once per
// X-Ray root given.
//   node xrayOrderProbe.mjs <in-order|invocation-first> <_X_AMZN_TRACE_ID>…
import { xrayTracing } from "../../src/tracing/xray.js";

const [order, ...headers] = process.argv.slice(2);
const tracing = xrayTracing("probe");
for (const header of headers) {
  process.env._X_AMZN_TRACE_ID = header;
  const invocation = tracing.invocation();
  if (invocation === undefined) throw new Error("the invocation is not traced");
  const tool = invocation.open("Tool T");
  const call = tool.open("Prometheus /query");
  const closing = order === "invocation-first" ? [invocation, call, tool] : [call, tool, invocation];
  for (const trace of closing) {
    trace.close();
    trace.close(); // closing again does nothing
    await new Promise((resolve) => setImmediate(resolve));
  }
}
