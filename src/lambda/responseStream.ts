import type { Writable } from "node:stream";
import type { HttpResponse } from "../http/responses.js";
import { SSE_KEEPALIVE } from "../http/sse.js";

/**
 * While an SSE answer waits on a slow query, a comment line this often keeps the connection in use,
 * well inside the idle limits of the streaming front doors (5 minutes for a regional REST API).
 */
export const KEEPALIVE_MS = 15_000;

/**
 * The invocation's response stream (the Node runtime's, under `awslambda.streamifyResponse`) as one
 * HTTP answer: written whole, or opened and written as it comes. It notes when a stream written over
 * time breaks before its end (an error: where the runtime reports that at all, the front door closed
 * it), and from then on writes nothing.
 */
export class ResponseOut {
  private http: Writable | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  private readonly broken = new AbortController();

  constructor(private readonly stream: Writable) {}

  /** Aborts when the stream broke before its end. */
  get gone(): AbortSignal {
    return this.broken.signal;
  }

  /** Whether the status and headers have gone out (nothing else can be answered then). */
  get opened(): boolean {
    return this.http !== undefined;
  }

  /**
   * Sends the status and headers. `keepAlive` (an answer written over time): a comment line whenever
   * KEEPALIVE_MS pass, and the stream watched for breaking (an answer written at once has nothing to
   * stop, and the runtime's stream has an error listener of its own).
   */
  open(statusCode: number, headers: Record<string, string>, keepAlive = false): void {
    this.http = awslambda.HttpResponseStream.from(this.stream, { statusCode, headers });
    if (!keepAlive) return;
    this.stream.on("error", () => this.markGone());
    this.keepalive = setInterval(() => this.write(SSE_KEEPALIVE), KEEPALIVE_MS);
  }

  write(text: string): void {
    if (this.http !== undefined && !this.gone.aborted) this.http.write(text);
  }

  /**
   * Writes the last text and ends the stream. Nothing to wait for: the runtime waits for the stream
   * to finish once the handler has returned (aws-lambda-ric awaits the Runtime API's answer to it).
   */
  end(text = ""): void {
    clearInterval(this.keepalive);
    const http = this.http ?? this.stream;
    if (this.gone.aborted || http.writableEnded) return;
    // Through write, never end(text): the runtime's stream sends the HTTP prelude on the first write()
    // only, and an answer must write something (an empty body too) for its prelude to go out.
    http.write(text);
    http.end();
  }

  /** One whole HTTP answer. */
  whole(response: HttpResponse): void {
    this.open(response.statusCode, response.headers);
    this.end(response.body);
  }

  /** Text with no HTTP prelude: a direct invocation's result. */
  raw(text: string): void {
    this.http = this.stream;
    this.end(text);
  }

  private markGone(): void {
    clearInterval(this.keepalive);
    this.broken.abort(new DOMException("the response stream closed before its end", "AbortError"));
  }
}
