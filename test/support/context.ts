import { type RequestContext, startRequest, withCancellation } from "../../src/context.js";
import type { Report } from "../../src/metrics/report.js";
import type { Trace } from "../../src/tracing/trace.js";

export interface TestContextOptions {
  /** Cancels the request, as the MCP server's cancellation signal does (`withCancellation`). */
  signal?: AbortSignal;
  principal?: string;
  replyBytes?: number;
  report?: Report;
  trace?: Trace;
}

/**
 * A request context for calling below the handler, built as the handler builds one (`startRequest`):
 * a deadline `timeoutMs` away, its signal made on first use and aborted then, and, with `signal`, also
 * aborted when that fires (`withCancellation`). Zero or less: the deadline has already passed.
 */
export function testContext(timeoutMs = 10_000, options: TestContextOptions = {}): RequestContext {
  const request = startRequest({
    timeoutMs,
    principal: options.principal,
    replyBytes: options.replyBytes,
    report: options.report,
    trace: options.trace,
  });
  return options.signal ? withCancellation(request, options.signal) : request;
}
