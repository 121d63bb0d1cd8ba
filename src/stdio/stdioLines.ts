import type { Readable, Writable } from "node:stream";
import type { Transport } from "../mcp/sdk.js";
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, serializeMessage } from "../mcp/sdk.js";
import { classify, hasUnreadableId } from "../protocol/jsonrpc.js";
import { cutText } from "../util/text.js";

/** The longest line (newline excluded) read from stdin: the SDK's own read-buffer limit. */
export const STDIO_MAX_LINE_BYTES = 10 * 1024 * 1024;

/** How many characters of a bad line the log shows. */
const PREFIX_CHARS = 32;
/** How many of a too-long line's first bytes are kept for its prefix. */
const HEAD_BYTES = PREFIX_CHARS * 4;

/** Why a line was answered with an error instead of reaching the server. */
export type BadLineReason = "too long" | "not JSON" | "not JSON-RPC";

/** A line the transport answered itself, for the log: never the line, at most its first characters. */
export interface BadLine {
  reason: BadLineReason;
  /** The line's length in bytes, its newline excluded. */
  bytes: number;
  /** Its first PREFIX_CHARS characters (bytes that are not UTF-8 read as U+FFFD). */
  prefix: string;
  /** The JSON-RPC error code of the answer. */
  code: number;
}

/**
 * Cuts a byte stream into lines at each `\n` (a `\r` before it is dropped), holding at most
 * `maxBytes` of one line: a longer line is not kept but skipped up to its newline, and reported
 * with its length and its first bytes.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line over the limit: its bytes so far (all dropped) and the first of them. */
  private skipping: { bytes: number; head: Buffer } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onTooLong: (bytes: number, head: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.finishLine();
      start = newline + 1;
    }
  }

  /** The input has ended: a last line without its newline is a line all the same. */
  end(): void {
    if (this.skipping !== undefined || this.pendingBytes > 0) this.finishLine();
  }

  private take(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.skipping !== undefined) {
      this.skipping.bytes += bytes.length;
      if (this.skipping.head.length < HEAD_BYTES) this.skipping.head = headOf([this.skipping.head, bytes]);
      return;
    }
    if (this.pendingBytes + bytes.length > this.maxBytes) {
      this.skipping = { bytes: this.pendingBytes + bytes.length, head: headOf([...this.pending, bytes]) };
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private finishLine(): void {
    const skipped = this.skipping;
    if (skipped !== undefined) {
      this.skipping = undefined;
      this.onTooLong(skipped.bytes, skipped.head);
      return;
    }
    const line = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.onLine(line.at(-1) === 13 ? line.subarray(0, -1) : line);
  }
}

/** The first HEAD_BYTES of `pieces` (enough for PREFIX_CHARS characters), without copying the rest. */
function headOf(pieces: Buffer[]): Buffer {
  const wanted = HEAD_BYTES;
  const head: Buffer[] = [];
  let bytes = 0;
  for (const piece of pieces) {
    if (bytes >= wanted) break;
    head.push(piece.subarray(0, wanted - bytes));
    bytes += Math.min(piece.length, wanted - bytes);
  }
  return Buffer.concat(head);
}

/** The first characters of `text`, for a log line. */
function prefixOf(text: string): string {
  return cutText(text, PREFIX_CHARS);
}

/** Only spaces, tabs and carriage returns: a blank line, skipped. */
const BLANK = /^[ \t\r]*$/;

/** What a line says, or the error that answers it. */
type Parsed =
  | { message: JSONRPCMessage }
  | { error: { code: number; message: string }; id: string | number | null; reason: BadLineReason };

/**
 * One line as JSON-RPC. Not JSON: `-32700 Parse error`. JSON but not a JSON-RPC message the SDK
 * accepts: `-32600 Invalid Request`, under the line's id when it has a method and a usable id (so the
 * client's request is answered), else id null as the JSON-RPC spec says. A message whose id cannot be
 * read exactly (a number past 2^53 - 1) gets HTTP's answer to it, word for word.
 */
export function parseLine(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      error: { code: ErrorCode.ParseError, message: "Parse error: the line is not JSON" },
      id: null,
      reason: "not JSON",
    };
  }
  // An id past 2^53 - 1 has been rounded by JSON.parse: answered as HTTP answers the same message
  // (classify: -32600, id null), never under the rounded id another request may carry.
  const classified = hasUnreadableId(value) ? classify(value) : undefined;
  if (classified?.kind === "invalid") {
    return { error: classified.reply.error, id: null, reason: "not JSON-RPC" };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  let id: string | number | null = null;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const { id: given, method } = value as { id?: unknown; method?: unknown };
    if (typeof method === "string" && (typeof given === "string" || Number.isSafeInteger(given)))
      id = given as string | number;
  }
  return {
    error: {
      code: ErrorCode.InvalidRequest,
      message: "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
    },
    id,
    reason: "not JSON-RPC",
  };
}

export interface StdioLineTransportOptions {
  input?: Readable;
  output?: Writable;
  /** The longest line accepted, in bytes (default STDIO_MAX_LINE_BYTES). */
  maxLineBytes?: number;
  /** Called once for each line answered with an error instead of reaching the server. */
  onBadLine?: (bad: BadLine) => void;
}

/**
 * The MCP stdio transport (newline-delimited JSON-RPC on stdin/stdout), framing the lines itself
 * so that no input ends the conversation: a line over `maxLineBytes` is dropped (never held whole)
 * and answered `-32700 Parse error`, a line that is not JSON likewise, a JSON value that is not a
 * JSON-RPC message `-32600 Invalid Request`; blank lines are skipped. Every other line goes to the
 * server, in order. While stdout is not taking these answers, stdin is not read.
 *
 * Unlike the SDK's StdioServerTransport it notices the end of stdin: `onend` is called once the
 * last line (with or without its newline) has been handled.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** stdin has ended and every line of it has been handled. */
  onend?: () => void;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly splitter: LineSplitter;
  private readonly onBadLine: (bad: BadLine) => void;
  private started = false;
  private closed = false;
  private waitingForDrain = false;

  constructor(options: StdioLineTransportOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.onBadLine = options.onBadLine ?? (() => {});
    const maxBytes = options.maxLineBytes ?? STDIO_MAX_LINE_BYTES;
    this.splitter = new LineSplitter(
      maxBytes,
      (line) => this.handleLine(line),
      (bytes, head) => {
        this.answerError(null, {
          code: ErrorCode.ParseError,
          message: `Parse error: the line of ${bytes} bytes is over the limit of ${maxBytes} bytes and was dropped`,
        });
        this.onBadLine({
          reason: "too long",
          bytes,
          prefix: prefixOf(head.toString("utf8")),
          code: ErrorCode.ParseError,
        });
      },
    );
  }

  private readonly ondata = (chunk: Buffer | string): void => {
    this.splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onInputEnd = (): void => {
    if (this.closed) return;
    this.splitter.end();
    this.onend?.();
  };

  async start(): Promise<void> {
    if (this.started) throw new Error("StdioLineTransport already started");
    this.started = true;
    this.input.on("data", this.ondata);
    this.input.on("error", this.onInputError);
    this.input.once("end", this.onInputEnd);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.ondata);
    this.input.off("error", this.onInputError);
    this.input.off("end", this.onInputEnd);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(serializeMessage(message))) resolve();
      else this.output.once("drain", resolve);
    });
  }

  private handleLine(line: Buffer): void {
    const text = line.toString("utf8");
    if (BLANK.test(text)) return;
    const parsed = parseLine(text);
    if ("message" in parsed) {
      try {
        this.onmessage?.(parsed.message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
      return;
    }
    this.answerError(parsed.id, parsed.error);
    this.onBadLine({
      reason: parsed.reason,
      bytes: line.length,
      prefix: prefixOf(text),
      code: parsed.error.code,
    });
  }

  /**
   * Writes an error answer the transport gives itself (its id may be null, which the SDK's message
   * type does not allow). A flood of bad lines must not pile answers up in memory: until stdout
   * drains, stdin is paused.
   */
  private answerError(id: string | number | null, error: { code: number; message: string }): void {
    const written = this.output.write(`${JSON.stringify({ jsonrpc: "2.0", id, error })}\n`);
    if (written || this.waitingForDrain) return;
    this.waitingForDrain = true;
    this.input.pause();
    this.output.once("drain", () => {
      this.waitingForDrain = false;
      if (!this.closed) this.input.resume();
    });
  }
}

/**
 * Passes at most `limit` lines per `windowMs` to `emit` and counts the rest, reported in one line
 * ("... more not logged") at the end of the window or on `flush()`: however fast bad input comes,
 * the log grows by at most `limit + 1` lines a window.
 */
export class RateLimitedLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private inWindow = 0;
  private suppressed = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly emit: (message: string, attributes: Record<string, unknown>) => void,
    private readonly limit = 10,
    private readonly windowMs = 1_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  log(message: string, attributes: Record<string, unknown>): void {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.flush();
      this.windowStart = now;
      this.inWindow = 0;
    }
    if (this.inWindow < this.limit) {
      this.inWindow += 1;
      this.emit(message, attributes);
      return;
    }
    this.suppressed += 1;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.windowStart + this.windowMs - now);
      this.timer.unref?.();
    }
  }

  /** Reports the lines not logged so far, if any. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.suppressed === 0) return;
    const count = this.suppressed;
    this.suppressed = 0;
    this.emit("more bad input, not logged one by one", { count });
  }
}
