/**
 * X-Ray tracing (TRACING=on), as the rest of the code sees it: a subsegment to open others in, annotate
 * and close (its types are in ./types.js). Nothing here loads the tracer: `loadTracing` imports ./xray.js
 * (Powertools Tracer and the X-Ray SDK, a chunk of their own in the bundle) only when TRACING is on, so a
 * function with tracing off never loads them.
 */

import type { Trace, Tracing } from "./types.js";

// The types stay importable from here, where the code that uses them has always found them.
export type { AnnotationValue, Trace, Tracing } from "./types.js";

/**
 * Loads the tracer (Powertools Tracer, X-Ray SDK) and sets it up for `serviceName`. Called once per
 * handler when TRACING is on; `captureHTTPsRequests` is off, so `http`, `https` and `fetch` stay as they
 * are: the subsegments are the ones this code opens.
 */
export async function loadTracing(serviceName: string): Promise<Tracing> {
  const { xrayTracing } = await import("./xray.js");
  return xrayTracing(serviceName);
}

/**
 * Runs `run` in a subsegment `name` of `parent`, closed whatever happens; a failure is recorded on it
 * (an exception from a downstream service, a fault) and thrown on, unless `isClientError` says it is the
 * caller's (a query Prometheus refused, a write condition that failed): that only flags it an error.
 * Without a parent, `run` is called as it is, at no cost.
 *
 * @example
 * ```ts
 * return traced(context.trace, `AMP ${operation}`, (span) => {
 *   span?.annotate("region", region);
 *   return client.send(command);
 * });
 * ```
 */
export function traced<T>(
  parent: Trace | undefined,
  name: string,
  run: (span: Trace | undefined) => Promise<T>,
  isClientError?: (error: unknown) => boolean,
): Promise<T> {
  if (parent === undefined) return run(undefined);
  return runIn(parent.open(name), run, isClientError);
}

async function runIn<T>(
  span: Trace,
  run: (span: Trace) => Promise<T>,
  isClientError: ((error: unknown) => boolean) | undefined,
): Promise<T> {
  try {
    return await run(span);
  } catch (error) {
    if (isClientError?.(error)) span.flag("error");
    else span.fail(error, true);
    throw error;
  } finally {
    span.close();
  }
}

/**
 * Runs one invocation in its own subsegment when `tracing` traces it (else as it is), closed whatever
 * happens; what it throws (a fault of the handler) is recorded on it.
 */
export async function inInvocation<T>(
  tracing: Tracing | undefined,
  run: (trace: Trace | undefined) => Promise<T>,
): Promise<T> {
  const trace = tracing?.invocation();
  if (trace === undefined) return run(undefined);
  try {
    return await run(trace);
  } catch (error) {
    trace.fail(error);
    throw error;
  } finally {
    trace.close();
  }
}

/** What an invocation's subsegment says about its answer, once it is answered. */
export interface AnswerSummary {
  route: string;
  /** The HTTP status (or the one a direct invocation's answer would have had). */
  status: number;
  era: string | undefined;
  /** The trace id of the `traceparent` a 2026-07-28 request carried in `_meta`. */
  mcpTraceId: string | undefined;
}

/** Annotates the invocation's subsegment with its answer, and flags a 4xx as an error, a 5xx as a fault. */
export function annotateAnswer(trace: Trace | undefined, answer: AnswerSummary): void {
  if (trace === undefined) return;
  trace.annotate("route", answer.route);
  trace.annotate("status", answer.status);
  if (answer.era !== undefined) trace.annotate("era", answer.era);
  if (answer.mcpTraceId !== undefined) trace.annotate("mcp_trace_id", answer.mcpTraceId);
  if (answer.status >= 500) trace.flag("fault");
  else if (answer.status >= 400) trace.flag("error");
}
