import { formatCount, formatSize } from "./util/text.js";

/**
 * How far along a request is, for a caller who asked to be told (an MCP `progressToken`): each layer
 * says what it is doing as it does it, and the caller gets `notifications/progress`. Layers find it on
 * the request's context (`context.progress`), undefined when nobody asked.
 *
 * @example
 * ```ts
 * context.progress?.step("Asked Prometheus (/api/v1/query_range)");
 * context.progress?.reading(bytesSoFar, elementsSoFar, "Prometheus");
 * ```
 */
export interface Progress {
  /**
   * A step worth telling at once: the query sent, Prometheus answering, cutting begun (`info`), or a
   * retry (`warning`); the level is what a log notification of it says (2026-07-28 `logLevel`).
   */
  step(message: string, level?: "info" | "warning"): void;
  /** The answer as it is read: bytes and elements (series, values) so far; told a few times a second at most. */
  reading(bytes: number, elements: number, who: string): void;
}

/** The least time between two reading updates: a fast stream is told four times a second at most. */
export const READING_INTERVAL_MS = 250;

/** What one `notifications/progress` says, besides its token. */
export interface ProgressUpdate {
  /** Counts up by one with each notification: strictly increasing, as MCP requires. */
  progress: number;
  message: string;
  /** Its level as a log message: `debug` for the reading, else the step's. */
  level: "debug" | "info" | "warning";
}

/**
 * Progress told through `send` (one `notifications/progress` each). A reading update comes no sooner
 * than READING_INTERVAL_MS after the last one; steps are told as they happen.
 */
export class ProgressNotifier implements Progress {
  private sent = 0;
  private lastReadingAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly send: (update: ProgressUpdate) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  step(message: string, level: "info" | "warning" = "info"): void {
    this.tell(message, level);
  }

  reading(bytes: number, elements: number, who: string): void {
    const at = this.now();
    if (at - this.lastReadingAt < READING_INTERVAL_MS) return;
    this.lastReadingAt = at;
    const read = elements > 0 ? `${formatCount(elements)} ${elements === 1 ? "entry" : "entries"}, ` : "";
    this.tell(`Reading ${who}'s answer: ${read}${formatSize(bytes)} so far`, "debug");
  }

  private tell(message: string, level: ProgressUpdate["level"]): void {
    this.sent += 1;
    this.send({ progress: this.sent, message, level });
  }
}
