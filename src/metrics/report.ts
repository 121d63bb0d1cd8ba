/** How one tool call went, for the metrics and the request's log line. */
export interface ToolOutcome {
  tool: string;
  /** Wall time of the call, in milliseconds. */
  ms: number;
  /** The call failed (a tool error, `isError`), whatever the cause. */
  failed: boolean;
  /** Why it failed: the tool error's kind, or `fault` for a failure of the server itself. */
  errorKind?: string | undefined;
  /** Milliseconds spent waiting on upstream calls (Prometheus, AMP), attempts and retries included. */
  upstreamMs: number;
  /** Bytes of text the result gave the model. */
  resultBytes: number;
  /** The result was cut to fit (`truncated`). */
  truncated: boolean;
  /** HTTP attempts made upstream (Prometheus, AMP), retries included. */
  upstreamAttempts: number;
}

/**
 * What the layers of one request tell the metrics as they go: the session manager a rehydration, the
 * bridge a deadline, the server each tool call, the Prometheus and AMP clients each attempt. Carried
 * by the request context; absent when metrics are off, so nothing is counted for nothing.
 */
export interface Report {
  rehydrated(): void;
  timedOut(): void;
  /** A request was answered as a fault of the server (`-32603 Internal error`). */
  faulted(): void;
  /**
   * `count` HTTP attempts were made upstream (an AWS SDK call says how many it made, retries included),
   * taking `ms` milliseconds.
   */
  upstreamAttempts(count: number, ms: number): void;
  toolCalled(outcome: ToolOutcome): void;
}

/** The report of one request: what happened in it, read once it is answered. */
export class RequestReport implements Report {
  rehydrations = 0;
  timeouts = 0;
  faults = 0;
  readonly tools: ToolOutcome[] = [];

  rehydrated(): void {
    this.rehydrations++;
  }

  timedOut(): void {
    this.timeouts++;
  }

  faulted(): void {
    this.faults++;
  }

  /** Upstream calls are made by tool calls only, which count their own (ToolReport). */
  upstreamAttempts(_count: number, _ms: number): void {}

  toolCalled(outcome: ToolOutcome): void {
    this.tools.push(outcome);
  }
}

/** The report of one tool call inside a request: counts its own upstream attempts, passes the rest on. */
export class ToolReport implements Report {
  attempts = 0;
  upstreamMs = 0;

  constructor(private readonly request: Report) {}

  rehydrated(): void {
    this.request.rehydrated();
  }

  timedOut(): void {
    this.request.timedOut();
  }

  faulted(): void {
    this.request.faulted();
  }

  upstreamAttempts(count: number, ms: number): void {
    this.attempts += count;
    this.upstreamMs += ms;
  }

  toolCalled(outcome: ToolOutcome): void {
    this.request.toolCalled(outcome);
  }
}
