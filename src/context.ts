import { setMaxListeners } from "node:events";
import type { Context } from "aws-lambda";
import type { JSONRPCNotification } from "./mcp/sdk.js";
import type { Report } from "./metrics/report.js";
import { boundedDebug } from "./metrics/requestLine.js";
import type { Progress } from "./progress.js";
import type { Trace } from "./tracing/trace.js";

/**
 * What every await of one request shares: the time by which it must be answered, a signal that says
 * stop, and who asked. Built once at the edge (the Lambda handler) and passed down explicitly: bridge,
 * tools, Prometheus calls and the session store all bound themselves by it.
 *
 * @example
 * ```ts
 * const request = startRequest({ timeoutMs: remaining - 500, principal });
 * try {
 *   await store.get(id, request); // aborted at the deadline at the latest
 * } finally {
 *   request.end();
 * }
 * ```
 */
export interface RequestContext {
  /** Epoch milliseconds by which the answer must be ready. */
  readonly deadlineAt: number;
  /** Aborts when the request's deadline passes (reason: a `TimeoutError`) or when it is cancelled. */
  readonly signal: AbortSignal;
  /** The authenticated caller (IAM user ARN or JWT `sub`) named by the authorizer, if any. */
  readonly principal: string | undefined;
  /**
   * The tenant the caller's token names (TENANT_CLAIM), which every upstream request carries; undefined
   * when the deployment maps no tenants, or the request has no token (then no upstream call is made).
   */
  readonly tenant?: string | undefined;
  /**
   * The most bytes one JSON-RPC reply may take so that the whole response stays within Lambda's
   * limit: a batch's requests share it. Infinity where nothing bounds it.
   */
  readonly replyBytes: number;
  /** Where the request's layers report what happened, for the metrics; undefined when metrics are off. */
  readonly report: Report | undefined;
  /**
   * The X-Ray subsegment its layers open theirs in (see src/tracing); undefined when tracing is off or
   * the request is not sampled.
   */
  readonly trace?: Trace | undefined;
  /** The Lambda invocation the request belongs to, named on the function's log lines about it. */
  readonly invocation?: Invocation | undefined;
  /**
   * Writes a DEBUG line about this request; undefined unless LOG_LEVEL is DEBUG or TRACE. Each field is
   * bounded (see `boundedDebug`): a line stays well within CloudWatch's event size whatever was sent.
   */
  readonly debug?: DebugLog | undefined;
  /**
   * Where its layers say how far along they are (src/progress.ts); undefined unless the caller asked
   * to be told (a tool call's `progressToken`).
   */
  readonly progress?: Progress | undefined;
  /**
   * Where notifications about this request go as they happen (progress, on a streamed answer); undefined
   * where they could go nowhere (one buffered JSON body), and then they are not even made.
   */
  readonly notify?: ((notification: JSONRPCNotification) => void) | undefined;
}

/** A DEBUG log line: a message and its fields (never a credential; query text only here). */
export type DebugLog = (message: string, fields: Record<string, unknown>) => void;

/** The Lambda invocation a request arrived in, and the id its log lines are correlated by. */
export interface Invocation {
  readonly lambda: Context | undefined;
  readonly correlationId: string | undefined;
}

/** A request context, and the way to release its timer once the request is answered. */
export interface StartedRequest extends RequestContext {
  end(): void;
}

function deadlinePassed(): DOMException {
  return new DOMException("the request's deadline passed", "TimeoutError");
}

/**
 * The signal is made on first use, with a timer that aborts it at the deadline; `end()` clears that
 * timer, and a signal first asked for after `end()` is already aborted. Most requests (tools/list,
 * ping, a GetServerInfo) do no I/O and never ask, and for them making a signal and listening to it
 * would be a measurable share of the request (bench case warm-tools-list).
 */
class Request implements StartedRequest {
  private madeSignal: AbortSignal | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    readonly deadlineAt: number,
    readonly principal: string | undefined,
    readonly replyBytes: number,
    readonly report: Report | undefined,
    readonly trace: Trace | undefined,
    readonly invocation: Invocation | undefined,
    readonly debug: DebugLog | undefined,
    readonly tenant: string | undefined,
  ) {}

  get signal(): AbortSignal {
    if (this.madeSignal === undefined) {
      if (this.ended) {
        this.madeSignal = AbortSignal.abort(new DOMException("the request has ended", "AbortError"));
      } else {
        const controller = new AbortController();
        this.madeSignal = controller.signal;
        // Every request of a batch (up to 100) may wait on the one signal: no leak, so no warning.
        setMaxListeners(0, this.madeSignal);
        this.timer = setTimeout(() => controller.abort(deadlinePassed()), Math.max(0, timeLeft(this)));
      }
    }
    return this.madeSignal;
  }

  end(): void {
    this.ended = true;
    clearTimeout(this.timer);
  }
}

/** Starts the context of one request that must be answered within `timeoutMs`. */
export function startRequest(options: {
  timeoutMs: number;
  principal?: string | undefined;
  tenant?: string | undefined;
  replyBytes?: number;
  report?: Report | undefined;
  trace?: Trace | undefined;
  invocation?: Invocation | undefined;
  debug?: DebugLog | undefined;
}): StartedRequest {
  return new Request(
    Date.now() + Math.max(0, options.timeoutMs),
    options.principal,
    options.replyBytes ?? Number.POSITIVE_INFINITY,
    options.report,
    options.trace,
    options.invocation,
    options.debug === undefined ? undefined : boundedDebug(options.debug),
    options.tenant,
  );
}

/** Milliseconds until the context's deadline (negative once it has passed). */
export function timeLeft(context: Pick<RequestContext, "deadlineAt">): number {
  return context.deadlineAt - Date.now();
}

/**
 * The same request with another deadline, reply size, report, trace or progress; its signal is the
 * request's, asked for only on use.
 */
class Derived implements RequestContext {
  constructor(
    private readonly request: RequestContext,
    readonly deadlineAt: number,
    readonly replyBytes: number,
    readonly report: Report | undefined = request.report,
    readonly trace: Trace | undefined = request.trace,
    readonly progress: Progress | undefined = request.progress,
    readonly notify: RequestContext["notify"] = request.notify,
  ) {}

  get principal(): string | undefined {
    return this.request.principal;
  }

  get tenant(): string | undefined {
    return this.request.tenant;
  }

  get invocation(): Invocation | undefined {
    return this.request.invocation;
  }

  get debug(): DebugLog | undefined {
    return this.request.debug;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

/** The same request with an earlier deadline, leaving `marginMs` to the caller to report what happened. */
export function withMargin(context: RequestContext, marginMs: number): RequestContext {
  return new Derived(context, context.deadlineAt - marginMs, context.replyBytes);
}

/** The same request, whose layers report to `report` (one tool call's own report, say). */
export function withReport(context: RequestContext, report: Report | undefined): RequestContext {
  return new Derived(context, context.deadlineAt, context.replyBytes, report);
}

/** The same request, whose layers open their X-Ray subsegments in `trace` (one tool call's, say). */
export function withTrace(context: RequestContext, trace: Trace | undefined): RequestContext {
  return new Derived(context, context.deadlineAt, context.replyBytes, context.report, trace);
}

/** The same request, whose layers tell `progress` how far along they are (one tool call's caller, say). */
export function withProgress(context: RequestContext, progress: Progress | undefined): RequestContext {
  return new Derived(
    context,
    context.deadlineAt,
    context.replyBytes,
    context.report,
    context.trace,
    progress,
  );
}

/** The same request, whose notifications (progress) go to `notify` as they happen: a streamed answer's. */
export function withNotifications(
  context: RequestContext,
  notify: (notification: JSONRPCNotification) => void,
): RequestContext {
  const { deadlineAt, replyBytes, report, trace, progress } = context;
  return new Derived(context, deadlineAt, replyBytes, report, trace, progress, notify);
}

/**
 * Where a streamed answer's notifications go as they happen, where its reply goes, and (`gone`) a signal
 * that aborts when its client went away and nothing can reach it any more: the request is then
 * cancelled. The first notification opens the stream (status 200 sent); until then the route's HTTP
 * response is the answer, and the sink does nothing with a reply or a failure but note that the request
 * has answered (a notification after that goes nowhere).
 */
export interface StreamSink extends ReplySink {
  notify(notification: JSONRPCNotification): void;
  gone?: AbortSignal | undefined;
}

/** The route's side of a stream sink: where its answer goes once a notification has opened the stream. */
export interface ReplySink {
  /** The reply's JSON text, as the response ceiling left it: the stream's last event. */
  reply(json: string): void;
  /**
   * A failure the route answers in place of a reply (a session store's): the stream's status has gone
   * out, so it ends with a JSON-RPC error (`code`, `message`) to each request the payload holds.
   */
  fail(code: number, message: string): void;
}

/** The same request, answered on `sink`: its notifications go there, and it stops when the sink is gone. */
export function withStreamSink(context: RequestContext, sink: StreamSink): RequestContext {
  const notified = withNotifications(context, (notification) => sink.notify(notification));
  return sink.gone === undefined ? notified : withCancellation(notified, sink.gone);
}

/** One of `parts` requests answered together: each reply gets an equal part of the response. */
export function withShareOfReply(context: RequestContext, parts: number): RequestContext {
  return new Derived(context, context.deadlineAt, Math.floor(context.replyBytes / Math.max(1, parts)));
}

/** The same request, also aborted when its caller cancels it (`cancelled` fires). */
class Cancellable implements RequestContext {
  private combined: AbortSignal | undefined;

  constructor(
    private readonly request: RequestContext,
    private readonly cancelled: AbortSignal,
  ) {}

  get deadlineAt(): number {
    return this.request.deadlineAt;
  }

  get principal(): string | undefined {
    return this.request.principal;
  }

  get tenant(): string | undefined {
    return this.request.tenant;
  }

  get replyBytes(): number {
    return this.request.replyBytes;
  }

  get report(): Report | undefined {
    return this.request.report;
  }

  get trace(): Trace | undefined {
    return this.request.trace;
  }

  get invocation(): Invocation | undefined {
    return this.request.invocation;
  }

  get debug(): DebugLog | undefined {
    return this.request.debug;
  }

  get progress(): Progress | undefined {
    return this.request.progress;
  }

  get notify(): RequestContext["notify"] {
    return this.request.notify;
  }

  get signal(): AbortSignal {
    // Made on first use only: most tool calls never ask for it.
    if (this.combined === undefined) {
      this.combined = AbortSignal.any([this.request.signal, this.cancelled]);
      setMaxListeners(0, this.combined);
    }
    return this.combined;
  }
}

/** The same request, also aborted by `cancelled`: what the MCP server signals when the caller cancels it. */
export function withCancellation(context: RequestContext, cancelled: AbortSignal): RequestContext {
  return new Cancellable(context, cancelled);
}

/** One step that does I/O (an HTTP call, a store call): at most `capMs`, never past the deadline. */
export interface Step {
  /** How long the step may take. Zero or less: the deadline has passed, do not start. */
  timeoutMs: number;
  /** Aborts with the request, or when `timeoutMs` has elapsed (reason: a `TimeoutError`). */
  signal: AbortSignal;
  /** Releases the step's timer: call it once the step is over. */
  end(): void;
}

/**
 * Starts a step. Its timer is a plain one held until `end()`, not `AbortSignal.timeout`: inside
 * `AbortSignal.any`, Node 20 holds a timeout signal only weakly, so a garbage collection during the
 * step silently cancels its timeout (seen here: a tool hung until the request's deadline).
 */
export function step(context: RequestContext, capMs: number): Step {
  const timeoutMs = Math.min(capMs, timeLeft(context));
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")),
    Math.max(0, timeoutMs),
  );
  return {
    timeoutMs,
    signal: AbortSignal.any([context.signal, controller.signal]),
    end: () => clearTimeout(timer),
  };
}

/** True when `signal` was aborted by a deadline (the step's or the request's), not by a cancellation. */
export function abortedByDeadline(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { name?: unknown } | undefined)?.name === "TimeoutError";
}
