import type { AnnotationValue, Trace } from "../../src/tracing/trace.js";

/** A Trace that records what was done to it and its children, in memory (no X-Ray SDK). */
export class RecordingTrace implements Trace {
  readonly children: RecordingTrace[] = [];
  readonly annotations: Record<string, AnnotationValue> = {};
  readonly metadata: Record<string, unknown> = {};
  readonly failures: { error: unknown; remote: boolean | undefined }[] = [];
  readonly flags: ("error" | "fault")[] = [];
  /** How many times close() was called. */
  closes = 0;

  constructor(readonly name = "root") {}

  open(name: string): RecordingTrace {
    const child = new RecordingTrace(name);
    this.children.push(child);
    return child;
  }

  annotate(key: string, value: AnnotationValue): void {
    this.annotations[key] = value;
  }

  describe(key: string, value: unknown): void {
    this.metadata[key] = value;
  }

  fail(error: unknown, remote?: boolean): void {
    this.failures.push({ error, remote });
  }

  flag(kind: "error" | "fault"): void {
    this.flags.push(kind);
  }

  close(): void {
    this.closes++;
  }

  /** This subsegment and every one below it, depth first. */
  all(): RecordingTrace[] {
    return [this, ...this.children.flatMap((child) => child.all())];
  }
}
