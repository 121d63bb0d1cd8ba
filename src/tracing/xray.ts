import { Tracer } from "@aws-lambda-powertools/tracer";
import type { AnnotationValue, Trace, Tracing } from "./types.js";

/*
 * Loaded only when TRACING is on (see loadTracing): importing it loads Powertools Tracer and the X-Ray
 * SDK, which on Lambda (LAMBDA_TASK_ROOT set) makes the facade segment of `_X_AMZN_TRACE_ID`; each
 * subsegment is sent to the X-Ray daemon (AWS_XRAY_DAEMON_ADDRESS) over UDP when it closes.
 */

type Segment = NonNullable<ReturnType<Tracer["getSegment"]>>;
type Subsegment = ReturnType<Segment["addNewSubsegment"]>;

/**
 * Subsegments are opened on their parent object, never looked up in the X-Ray SDK's context
 * (cls-hooked): the parent travels with the request context, so side-by-side tool calls of one batch
 * each get their own, and nothing depends on which async context the SDK happened to be loaded in.
 */
class XraySubsegment implements Trace {
  private closed = false;
  /** Sent to the daemon (by the SDK as it closed, or here). */
  private sent = false;
  /** Subsegments below this one (at any depth) not closed yet. */
  private openBelow = 0;

  constructor(
    private readonly subsegment: Subsegment,
    private readonly namespace: string,
    private readonly parent?: XraySubsegment,
  ) {}

  open(name: string): Trace {
    for (let above: XraySubsegment | undefined = this; above; above = above.parent) above.openBelow++;
    return new XraySubsegment(this.subsegment.addNewSubsegment(name), this.namespace, this);
  }

  annotate(key: string, value: AnnotationValue): void {
    this.subsegment.addAnnotation(key, value);
  }

  describe(key: string, value: unknown): void {
    this.subsegment.addMetadata(key, value, this.namespace);
  }

  fail(error: unknown, remote = false): void {
    this.subsegment.addError(error instanceof Error ? error : describeThrown(error), remote);
  }

  flag(kind: "error" | "fault"): void {
    if (kind === "fault") this.subsegment.addFaultFlag();
    else this.subsegment.addErrorFlag();
  }

  /**
   * The SDK sends a subsegment as it closes, unless one below it is still open: then it never does (a
   * request answered at its deadline while a call inside it still ran). Such a one is sent here, once
   * the last below it closes.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.subsegment.close();
      this.sent = this.openBelow === 0;
      for (let above = this.parent; above; above = above.parent) {
        above.openBelow--;
        if (above.closed && !above.sent && above.openBelow === 0) above.sendLate();
      }
    } catch {
      // A subsegment that cannot be sent is lost; the request it describes is not.
    }
  }

  private sendLate(): void {
    this.sent = true;
    if (this.subsegment.streamSubsegments()) this.subsegment.parent.removeSubsegment(this.subsegment);
  }
}

/**
 * The tracing of one handler through Powertools Tracer. Tracer is active only in a Lambda execution
 * environment (AWS_EXECUTION_ENV) unless POWERTOOLS_TRACE_ENABLED=false; elsewhere (serverless offline,
 * invoke local) no invocation is traced. An invocation X-Ray did not sample gets no subsegments at all.
 */
export function xrayTracing(serviceName: string): Tracing {
  const tracer = new Tracer({ serviceName, captureHTTPsRequests: false });
  const handlerName = `## ${process.env._HANDLER || "handler"}`;
  let coldStart = true;
  return {
    invocation(): Trace | undefined {
      const first = coldStart;
      coldStart = false;
      if (!tracer.isTracingEnabled() || !tracer.isTraceSampled()) return undefined;
      try {
        // The facade segment of this invocation (its trace id read again from `_X_AMZN_TRACE_ID`).
        const segment = tracer.getSegment();
        if (segment === undefined) return undefined;
        const subsegment = segment.addNewSubsegment(handlerName);
        // Powertools' own annotations on a handler's subsegment (what `captureLambdaHandler` adds).
        subsegment.addAnnotation("ColdStart", first);
        subsegment.addAnnotation("Service", serviceName);
        return new XraySubsegment(subsegment, serviceName);
      } catch {
        // Tracing is an aid: an invocation it cannot trace is served untraced.
        return undefined;
      }
    },
  };
}

function describeThrown(value: unknown): string {
  try {
    return typeof value === "string" ? value : (JSON.stringify(value) ?? typeof value);
  } catch {
    return `a thrown ${typeof value}`;
  }
}
