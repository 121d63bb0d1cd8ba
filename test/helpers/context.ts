import { setMaxListeners } from "node:events";
import type { RequestContext } from "../../src/context.js";
import type { Report } from "../../src/metrics/report.js";

/** A request context for calling below the handler: a deadline `timeoutMs` away, aborted then or with `signal`. */
export function testContext(
  timeoutMs = 10_000,
  options: { signal?: AbortSignal; principal?: string; replyBytes?: number; report?: Report } = {},
): RequestContext {
  const deadline = new AbortController();
  const passed = () => deadline.abort(new DOMException("the request's deadline passed", "TimeoutError"));
  if (timeoutMs > 0) setTimeout(passed, timeoutMs).unref();
  else passed();
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  // As for a real request: a batch's requests may all wait on the one signal.
  setMaxListeners(0, signal);
  return {
    deadlineAt: Date.now() + timeoutMs,
    signal,
    principal: options.principal,
    replyBytes: options.replyBytes ?? Number.POSITIVE_INFINITY,
    report: options.report,
  };
}
