/**
 * The shapes of X-Ray tracing (TRACING=on) as the rest of the code sees it: a subsegment to open others
 * in, annotate and close. Types only, in a module of their own so that ./trace.js (which loads ./xray.js
 * when tracing is on) and ./xray.js (which implements them) share them without importing each other.
 */

/** A value X-Ray indexes (annotations can be searched on: `annotation.mcp_trace_id = "…"`). */
export type AnnotationValue = string | number | boolean;

/**
 * One X-Ray subsegment. Carried by the request context (`trace`): undefined when tracing is off or the
 * request is not sampled, so nothing is built for a request no one will see.
 */
export interface Trace {
  /** A subsegment inside this one; whoever opens it closes it. */
  open(name: string): Trace;
  /** An indexed key (letters, digits, underscores) and value: never a query, a secret, a caller's text. */
  annotate(key: string, value: AnnotationValue): void;
  /** Unindexed detail, under the service's namespace. */
  describe(key: string, value: unknown): void;
  /** Records the exception and marks the subsegment a fault; `remote`: it came from a downstream service. */
  fail(error: unknown, remote?: boolean): void;
  /** Marks the subsegment as a client error (4xx) or a fault (5xx) without an exception. */
  flag(kind: "error" | "fault"): void;
  /** Ends the subsegment (which sends it); closing again does nothing. */
  close(): void;
}

/** The tracing of one handler: the subsegment of each invocation. */
export interface Tracing {
  /** The invocation's subsegment, or undefined when it is not traced (tracing inactive, not sampled). */
  invocation(): Trace | undefined;
}
