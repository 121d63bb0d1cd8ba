import { setMaxListeners } from "node:events";
import type { RequestContext } from "../../src/context.js";

/** A request context for calling below the handler: a deadline `timeoutMs` away, aborted then or with `signal`. */
export function testContext(
  timeoutMs = 10_000,
  options: { signal?: AbortSignal; principal?: string } = {},
): RequestContext {
  const deadline =
    timeoutMs > 0
      ? AbortSignal.timeout(timeoutMs)
      : AbortSignal.abort(new DOMException("the request's deadline passed", "TimeoutError"));
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  // As startRequest does: a batch's requests all listen to the one signal.
  setMaxListeners(0, signal);
  return { deadlineAt: Date.now() + timeoutMs, signal, principal: options.principal };
}
