import { ToolError } from "../errors.js";
import { boundElement, boundStrings, MAX_VALUE_CHARS } from "../monitoredText.js";
import { MalformedJsonError } from "../util/json.js";
import {
  AnswerFormatError,
  AnswerLimitError,
  AnswerScanner,
  type AnswerScannerOptions,
} from "./answerStream.js";

/**
 * Receives one answer's `data` as it streams in: each element of its big array (`data.result` of a
 * query, `data` itself for a list) as the bytes Prometheus wrote it with, then the rest. A sink parses
 * what it needs (parseJsonBytes), so that one reading only what it keeps pays no more. A new sink per
 * attempt: a retry starts over.
 */
export interface AnswerSink<T> {
  /** One element's bytes, valid during the call only (copy them to keep them). */
  element(raw: Uint8Array): void;
  /** `data` with its streamed array left empty, and the size of the whole answer in bytes. */
  finish(data: unknown, answerBytes: number): T;
  /**
   * Which array is streamed (`data.result` unless `streamedKey` names another key under `data`), or
   * `bare`: the answer is that array itself, not in Prometheus's `{status, data}` envelope (Alertmanager).
   */
  readonly format?: Pick<AnswerScannerOptions, "streamedKey" | "bare" | "maxSkeletonBytes">;
}

/** A success answer's value, or the body of one that was not a success, for its error. */
export type Read<T> = { ok: true; value: T } | { ok: false; body: string };

/** An error answer is read only this far: its message is all that is used. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Streams a 2xx answer through the scanner into the sink: memory holds one element at a time. A body
 * that is not a success envelope comes back as text, for the caller to report. `answer` names the
 * answer in messages ("Prometheus's answer at <URL>"). `onRead`, when given, hears after each chunk
 * how many bytes and elements have been read (the caller's progress).
 *
 * The sink sees the answer with every string bounded (src/monitoredText.ts): an element whose longest
 * string is over MAX_VALUE_CHARS as written is handed over bounded, and so is `data`'s skeleton.
 */
export async function readAnswer<T>(
  response: Response,
  answer: string,
  sink: AnswerSink<T>,
  maxAnswerBytes: number,
  onRead?: (bytes: number, elements: number) => void,
): Promise<Read<T>> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxAnswerBytes) {
    await response.body?.cancel();
    throw tooLarge(answer, maxAnswerBytes, `${formatBytes(declared)} declared`);
  }
  let elements = 0;
  const element = (bytes: Uint8Array, longestString: number) => {
    elements += 1;
    sink.element(longestString > MAX_VALUE_CHARS ? boundElement(bytes) : bytes);
  };
  const scanner = new AnswerScanner(element, sink.format);
  const reader = response.body?.getReader();
  // The start of the body, kept while it is small: what a 200 that is not JSON at all (a proxy's login
  // page) is reported with.
  let head: Uint8Array[] | undefined = [];
  try {
    for (;;) {
      const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
      if (chunk.done) break;
      head?.push(chunk.value);
      if (scanner.bytesRead + chunk.value.length > MAX_ERROR_BODY_BYTES) head = undefined;
      scanner.push(chunk.value);
      if (scanner.bytesRead > maxAnswerBytes) {
        await reader?.cancel();
        throw tooLarge(answer, maxAnswerBytes, `more than ${formatBytes(maxAnswerBytes)} read`);
      }
      onRead?.(scanner.bytesRead, elements);
    }
    const envelope = scanner.end();
    if (sink.format?.bare === true && Array.isArray(envelope)) {
      return { ok: true, value: sink.finish(boundStrings(envelope), scanner.bytesRead) };
    }
    if (isSuccess(envelope)) {
      return { ok: true, value: sink.finish(boundStrings(envelope.data), scanner.bytesRead) };
    }
    return { ok: false, body: JSON.stringify(envelope) };
  } catch (error) {
    if (error instanceof AnswerFormatError || error instanceof MalformedJsonError) {
      await reader?.cancel().catch(() => undefined);
      if (head !== undefined && !isJsonLike(head)) {
        return { ok: false, body: new TextDecoder().decode(Buffer.concat(head)) };
      }
      // Over a limit (nested thousands deep, an element of many MiB): no real answer is, so the upstream
      // or something between is at fault; the caller is told which, never a stack.
      if (error instanceof AnswerLimitError) {
        throw new ToolError(`${answer} cannot be read: ${lowerFirst(error.message)}`, "upstream_failed");
      }
      throw new ToolError(`${answer} is not valid JSON: ${error.message}`, "upstream_failed");
    }
    throw error;
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** True when a body starts like a JSON object or array (after whitespace). */
function isJsonLike(head: readonly Uint8Array[]): boolean {
  const text = new TextDecoder().decode(head[0] ?? new Uint8Array()).trimStart();
  return text.startsWith("{") || text.startsWith("[");
}

function isSuccess(envelope: unknown): envelope is { status: "success"; data: unknown } {
  return (envelope as { status?: unknown } | null)?.status === "success";
}

/** The first `maxBytes` of a body as text; the rest is not read. */
export async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.length;
    if (size >= maxBytes) {
      await reader.cancel();
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(parts).subarray(0, maxBytes));
}

function tooLarge(answer: string, maxBytes: number, seen: string): ToolError {
  return new ToolError(
    `${answer} is too large to read (${seen}; the limit is ${formatBytes(maxBytes)}). ` +
      "Narrow the query: aggregate with sum by (<label>) (...), keep the largest series with topk(10, ...), " +
      "add label matchers, or use a larger step or a shorter range.",
    "too_large",
  );
}

function formatBytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
