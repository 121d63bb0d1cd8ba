import type { StreamSink } from "../context.js";
import type { JSONRPCNotification } from "../mcp/sdk.js";
import { ErrorCode, errorsTo } from "../protocol/jsonrpc.js";
import type { ReplyTo } from "../sessions/streamEvents.js";
import { EventWriter } from "./eventWriter.js";
import type { ResponseOut } from "./responseStream.js";
import type { Keeping } from "./streamKeeping.js";

/** What a stream ends with when its request failed with no reply: the words of `serverFault`. */
const INTERNAL_ERROR = "Internal error";

/**
 * The SSE answer of one request, as its route's stream sink: the first notification opens it (status
 * 200, `headers`), each notification is an event, and the reply (or a failure in its place) is the last
 * event, written by `end`. The route hands the reply over as JSON text: nothing here reads an HTTP
 * response. Until a notification opens it, a reply only marks the request answered, and the route's
 * HTTP response is the whole answer.
 */
export class StreamedAnswer implements StreamSink {
  private writer: EventWriter | undefined;
  private last: string | undefined;
  private answered = false;

  constructor(
    private readonly out: ResponseOut,
    private readonly headers: Record<string, string>,
    private readonly keeping: Keeping | undefined,
    /** Whom a failure in place of the reply answers (see streamKeeping.ts, replyToOf). */
    private readonly replyTo: ReplyTo,
    readonly gone: AbortSignal | undefined,
  ) {}

  /** Whether a notification has opened the stream: its status has gone out. */
  get opened(): boolean {
    return this.writer !== undefined;
  }

  /** Whether the route has handed over its reply (or a failure in its place). */
  get replied(): boolean {
    return this.answered;
  }

  notify(notification: JSONRPCNotification): void {
    // After the reply nothing more is sent: the reply is the stream's last event.
    if (this.answered) return;
    if (this.writer === undefined) {
      this.out.open(200, this.headers, true);
      this.writer = new EventWriter(this.out, this.keeping);
    }
    this.writer.send(JSON.stringify(notification));
  }

  reply(json: string): void {
    if (this.answered) return;
    this.answered = true;
    if (this.writer !== undefined) this.last = json;
  }

  fail(code: number, message: string): void {
    if (this.answered) return;
    this.answered = true;
    if (this.writer !== undefined) this.last = this.errorText(code, message);
  }

  /**
   * Ends an opened stream with its last event, once every event is kept and written. With no reply
   * handed over (the request failed), that event is `-32603 Internal error` to each of its requests.
   */
  async end(): Promise<void> {
    if (this.writer === undefined) return;
    this.answered = true;
    await this.writer.end(this.last ?? this.errorText(ErrorCode.InternalError, INTERNAL_ERROR));
  }

  private errorText(code: number, message: string): string {
    return JSON.stringify(errorsTo(this.replyTo, code, message));
  }
}
