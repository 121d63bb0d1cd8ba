/**
 * The answer was not well-formed where the scanner relies on its structure, ended early, was not
 * valid JSON, or exceeded a limit (an {@link AnswerLimitError}).
 */
export class AnswerFormatError extends Error {
  override name = "AnswerFormatError";
}

/**
 * The answer exceeded one of the scanner's limits (size or nesting depth): it may well be valid JSON,
 * but it is not read. The message names the limit and its value.
 */
export class AnswerLimitError extends AnswerFormatError {
  override name = "AnswerLimitError";
}

/** Size limits of an {@link AnswerScanner}: what it may hold at once, whatever the answer's total size. */
export interface AnswerScannerOptions {
  /** Largest single element, in bytes (default 16 MiB). Exceeding it throws AnswerFormatError. */
  maxElementBytes?: number;
  /** Largest skeleton, in bytes (default 1 MiB). Exceeding it throws AnswerFormatError. */
  maxSkeletonBytes?: number;
  /**
   * Deepest nesting of arrays and objects, counted from the top of the answer and the same in the
   * skeleton and inside elements (default 64). Exceeding it throws AnswerFormatError (an
   * AnswerLimitError). Real answers nest at most about 9 deep (a range query's native histogram
   * buckets; the groups, rules, alerts and labels of /api/v1/rules), and code downstream
   * (JSON.stringify of a result) recurses once per level: an answer nested thousands deep would
   * overflow the stack.
   */
  maxDepth?: number;
  /**
   * The key under `data` whose array is streamed when `data` is an object (default `result`, a query's;
   * `alerts` for /api/v1/alerts, `groups` for /api/v1/rules).
   */
  streamedKey?: string;
  /**
   * The answer is not in Prometheus's envelope but a bare array (Alertmanager's API): its elements are
   * streamed, and end() returns `[]`.
   */
  bare?: boolean;
}

const DEFAULT_MAX_ELEMENT_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_SKELETON_BYTES = 1024 * 1024;
/** About seven times what real answers nest (see AnswerScannerOptions.maxDepth), far below any stack limit. */
export const DEFAULT_MAX_DEPTH = 64;

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

/** Fatal, so that bytes that are not UTF-8 fail instead of becoming U+FFFD. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

const WHITESPACE = 1;
/** Bytes of numbers and literals; their exact syntax is left to JSON.parse. */
const SCALAR = 2;
const CLASS = new Uint8Array(256);
for (const c of " \t\n\r") CLASS[c.charCodeAt(0)] = WHITESPACE;
for (const c of "0123456789+-.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  CLASS[c.charCodeAt(0)] = SCALAR;
}

/** Bytes that matter inside an element: one table lookup spares the common byte four comparisons. */
const STRUCTURE = new Uint8Array(256);
const OPEN = 1;
const CLOSE = 2;
const STRING_START = 3;
STRUCTURE[LBRACE] = OPEN;
STRUCTURE[LBRACKET] = OPEN;
STRUCTURE[RBRACE] = CLOSE;
STRUCTURE[RBRACKET] = CLOSE;
STRUCTURE[QUOTE] = STRING_START;

// Skeleton states: the bytes are copied and checked just enough to find keys; JSON.parse in end()
// validates the rest.
const VALUE = 0;
/** A value ended: `,` or the container's closer follows, or only whitespace at the top level. */
const AFTER_VALUE = 1;
const KEY_OR_CLOSE = 2;
const KEY = 3;
const KEY_COLON = 4;
const VALUE_OR_CLOSE = 5;
const STRING = 6;
const SKELETON_SCALAR = 7;
// States inside the streamed array: its elements go to onElement, its commas and whitespace nowhere.
const ARRAY_START = 8;
const ARRAY_NEXT = 9;
const ARRAY_AFTER = 10;
/** Inside an object or array element, outside its strings. */
const ELEMENT = 11;
const ELEMENT_STRING = 12;
const ELEMENT_SCALAR = 13;

// Skeleton frames. Only the top-level object and the object under its `data` key have keys that matter.
const OBJECT = 0;
const ARRAY = 1;
const TOP_OBJECT = 2;
const DATA_OBJECT = 3;

// What the next skeleton value is.
const PLAIN = 0;
const DATA_VALUE = 1;
const RESULT_VALUE = 2;

/**
 * Splits a Prometheus HTTP API answer, pushed as UTF-8 byte chunks, into the elements of its one big
 * array (the top-level `data` when it is an array, else `data.result` (or another key, `streamedKey`)
 * when that is one, or the whole answer when it is a bare array) and the rest, the skeleton. Memory
 * stays bounded by one element plus the skeleton, so answers of any size can be
 * read; elements are not decoded here, so the caller pays JSON.parse only for the ones it keeps.
 *
 * Elements are delivered as soon as they end, before the rest is checked: a caller must treat them
 * as provisional until end() returns. A repeated top-level `data` key, or `result` key under it, is
 * rejected: JSON.parse would keep the last one, which could disagree with the array already streamed.
 */
export class AnswerScanner {
  private readonly maxElementBytes: number;
  private readonly maxSkeletonBytes: number;
  private readonly maxDepth: number;
  private total = 0;
  private state = VALUE;
  /** The byte after a backslash that ended the previous chunk is skipped. */
  private escape = false;
  private failure: unknown;
  private ended = false;

  private readonly frames: number[] = [];
  private role = PLAIN;
  private isKey = false;
  private collectKey = false;
  private readonly keyParts: Uint8Array[] = [];
  private sawData = false;
  private sawResult = false;
  private readonly streamedKey: string;
  private readonly skeleton: Uint8Array[] = [];
  private skeletonBytes = 0;

  /** Closers expected inside the current element, innermost last. */
  private closers: Uint8Array = new Uint8Array(64);
  private depth = 0;
  /** The deepest `depth` an element may reach: maxDepth less the levels above the streamed array's elements. */
  private elementMaxDepth = 0;
  /** Copies of the current element's bytes from earlier chunks, concatenated once at its end. */
  private readonly parts: Uint8Array[] = [];
  private partsBytes = 0;
  /** The bytes of the current element's longest string so far (see onElement). */
  private longestString = 0;
  /** Where the string being read started (its first byte after the quote), counted from the first chunk. */
  private stringStart = 0;

  /**
   * @param onElement Called with each element of the streamed array, in order: exactly its bytes in the
   *   input, without surrounding whitespace or comma. The bytes are valid during the call only (often a
   *   view of the pushed chunk, which the caller may reuse): a caller that keeps an element copies it.
   *   Most elements of a large answer are read once and dropped, and copying each would cost a copy of
   *   the whole answer (and garbage the collector reaches late). With them, the length in bytes of the
   *   element's longest string (key or value) as written between its quotes, escapes included: no string
   *   of the element is longer once decoded, in UTF-16 code units, so an element whose longest string is
   *   short needs no look at its strings (src/monitoredText.ts); found on the way, at no extra pass.
   */
  constructor(
    private readonly onElement: (bytes: Uint8Array, longestString: number) => void,
    options: AnswerScannerOptions = {},
  ) {
    this.maxElementBytes = options.maxElementBytes ?? DEFAULT_MAX_ELEMENT_BYTES;
    this.maxSkeletonBytes = options.maxSkeletonBytes ?? DEFAULT_MAX_SKELETON_BYTES;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.streamedKey = options.streamedKey ?? "result";
    // A bare array's top-level `[` is the streamed array's.
    if (options.bare === true) this.role = RESULT_VALUE;
  }

  /** Total bytes pushed so far. */
  get bytesRead(): number {
    return this.total;
  }

  /**
   * Feeds the next chunk, which may split a token, an escape or a UTF-8 character anywhere. The
   * scanner keeps no reference to `chunk`, so the caller may reuse it. Throws AnswerFormatError at the
   * first structural error or exceeded limit (and again on any later call); errors thrown by onElement
   * propagate and also end the scan.
   */
  push(chunk: Uint8Array): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.ended) throw new Error("AnswerScanner.push() called after end()");
    try {
      this.scan(chunk);
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  /**
   * After the last chunk: JSON.parse of the skeleton, which is the input with the streamed array left
   * as `[]`. Throws AnswerFormatError when the input ended inside a value or is not valid JSON.
   */
  end(): unknown {
    if (this.failure !== undefined) throw this.failure;
    this.ended = true;
    try {
      const complete =
        this.frames.length === 0 && (this.state === AFTER_VALUE || this.state === SKELETON_SCALAR);
      if (!complete) {
        throw new AnswerFormatError(
          this.total === 0
            ? "The Prometheus answer is empty."
            : `The Prometheus answer ended inside a value, after ${this.total} bytes.`,
        );
      }
      let text: string;
      try {
        text = UTF8.decode(concat(this.skeleton, this.skeletonBytes));
      } catch {
        throw new AnswerFormatError("The Prometheus answer is not valid UTF-8.");
      }
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new AnswerFormatError(`The Prometheus answer is not valid JSON: ${(error as Error).message}`);
      }
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  // The answer scanner's state machine: one hot loop over every byte with its state in locals; split, each
  // token would pay a call on the path every byte takes (bench cases statistics-cost, budget-cost).
  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: one hot loop, its states documented together
  private scan(buf: Uint8Array): void {
    const n = buf.length;
    if (n === 0) return;
    const offset = this.total;
    this.total += n;
    let state = this.state;
    let i = 0;
    if (this.escape) {
      i = 1;
      this.escape = false;
    }
    let skeletonStart = state < ARRAY_START ? 0 : -1;
    let elementStart = 0;
    let keyStart = 0;

    while (i < n) {
      switch (state) {
        case ELEMENT: {
          // The hot loop: nearly every byte of a large answer passes here.
          let depth = this.depth;
          let closers = this.closers;
          let longest = this.longestString;
          const maxDepth = this.elementMaxDepth;
          element: for (; i < n; i++) {
            const c = buf[i] as number;
            const kind = STRUCTURE[c];
            if (kind === 0) continue;
            if (kind === OPEN) {
              if (depth >= maxDepth) throw this.tooDeep(offset + i);
              if (depth === closers.length) closers = this.growClosers();
              closers[depth++] = c + 2; // `{` + 2 is `}`, `[` + 2 is `]`
            } else if (kind === STRING_START) {
              const from = ++i;
              for (;;) {
                if (i >= n) {
                  if (i > n) this.escape = true;
                  this.stringStart = offset + from;
                  state = ELEMENT_STRING;
                  break element;
                }
                const d = buf[i];
                if (d === QUOTE) break;
                i += d === BACKSLASH ? 2 : 1;
              }
              if (i - from > longest) longest = i - from;
            } else {
              if (closers[--depth] !== c) {
                throw this.unexpected(c, offset + i, "an element of the array (brackets do not match)");
              }
              if (depth === 0) {
                i++;
                this.emit(buf, elementStart, i, longest);
                longest = 0;
                state = ARRAY_AFTER;
                break;
              }
            }
          }
          this.depth = depth;
          this.longestString = longest;
          break;
        }

        case ELEMENT_STRING: {
          i = stringEnd(buf, i, n);
          if (i >= n) {
            if (i > n) this.escape = true;
            break;
          }
          this.longestString = Math.max(this.longestString, offset + i - this.stringStart);
          i++;
          if (this.depth === 0) {
            this.emit(buf, elementStart, i, this.longestString);
            this.longestString = 0;
            state = ARRAY_AFTER;
          } else {
            state = ELEMENT;
          }
          break;
        }

        case ELEMENT_SCALAR: {
          while (i < n && CLASS[buf[i] as number] === SCALAR) i++;
          if (i < n) {
            this.emit(buf, elementStart, i, 0);
            state = ARRAY_AFTER;
          }
          break;
        }

        case ARRAY_AFTER: {
          const c = buf[i] as number;
          if (CLASS[c] === WHITESPACE) {
            i++;
          } else if (c === COMMA) {
            state = ARRAY_NEXT;
            i++;
          } else if (c === RBRACKET) {
            skeletonStart = i++;
            state = AFTER_VALUE;
          } else {
            throw this.unexpected(c, offset + i, 'after an element of the array (expected "," or "]")');
          }
          break;
        }

        case ARRAY_START:
        case ARRAY_NEXT: {
          const c = buf[i] as number;
          if (CLASS[c] === WHITESPACE) {
            i++;
            break;
          }
          if (c === RBRACKET && state === ARRAY_START) {
            skeletonStart = i++;
            state = AFTER_VALUE;
            break;
          }
          elementStart = i;
          if (c === LBRACE || c === LBRACKET) {
            if (this.elementMaxDepth < 1) throw this.tooDeep(offset + i);
            this.closers[0] = c + 2;
            this.depth = 1;
            state = ELEMENT;
          } else if (c === QUOTE) {
            this.depth = 0;
            this.stringStart = offset + i + 1;
            state = ELEMENT_STRING;
          } else if (CLASS[c] === SCALAR) {
            state = ELEMENT_SCALAR;
          } else {
            throw this.unexpected(c, offset + i, "where an element of the array should start");
          }
          i++;
          break;
        }

        case STRING: {
          i = stringEnd(buf, i, n);
          if (i >= n) {
            if (i > n) this.escape = true;
            break;
          }
          i++;
          if (!this.isKey) {
            state = AFTER_VALUE;
            break;
          }
          if (this.collectKey) this.noteKey(this.decodeKey(buf.subarray(keyStart, i), offset + i));
          state = KEY_COLON;
          break;
        }

        case SKELETON_SCALAR: {
          while (i < n && CLASS[buf[i] as number] === SCALAR) i++;
          if (i < n) state = AFTER_VALUE;
          break;
        }

        case VALUE:
        case VALUE_OR_CLOSE: {
          const c = buf[i] as number;
          if (CLASS[c] === WHITESPACE) {
            i++;
            break;
          }
          if (c === RBRACKET && state === VALUE_OR_CLOSE) {
            this.frames.pop();
            state = AFTER_VALUE;
            i++;
            break;
          }
          const role = this.role;
          this.role = PLAIN;
          if ((c === LBRACE || c === LBRACKET) && this.frames.length >= this.maxDepth) {
            throw this.tooDeep(offset + i);
          }
          if (c === LBRACE) {
            this.frames.push(
              this.frames.length === 0 ? TOP_OBJECT : role === DATA_VALUE ? DATA_OBJECT : OBJECT,
            );
            state = KEY_OR_CLOSE;
          } else if (c === LBRACKET) {
            if (role !== PLAIN) {
              // The streamed array: its `[` and `]` stay in the skeleton, all between goes to onElement.
              i++;
              this.keepSkeleton(buf, skeletonStart, i);
              skeletonStart = -1;
              // The array is one level below the open frames, its elements' containers one more.
              this.elementMaxDepth = this.maxDepth - this.frames.length - 1;
              state = ARRAY_START;
              break;
            }
            this.frames.push(ARRAY);
            state = VALUE_OR_CLOSE;
          } else if (c === QUOTE) {
            this.isKey = false;
            state = STRING;
          } else if (CLASS[c] === SCALAR) {
            state = SKELETON_SCALAR;
          } else {
            throw this.unexpected(c, offset + i, "where a value should start");
          }
          i++;
          break;
        }

        case AFTER_VALUE: {
          const c = buf[i] as number;
          if (CLASS[c] === WHITESPACE) {
            i++;
            break;
          }
          const frame = this.frames[this.frames.length - 1];
          if (frame === undefined) throw this.unexpected(c, offset + i, "after the end of the answer");
          if (c === COMMA) {
            state = frame === ARRAY ? VALUE : KEY;
          } else if (c === (frame === ARRAY ? RBRACKET : RBRACE)) {
            this.frames.pop();
          } else {
            throw this.unexpected(
              c,
              offset + i,
              `after a value (expected "," or "${frame === ARRAY ? "]" : "}"}")`,
            );
          }
          i++;
          break;
        }

        case KEY_OR_CLOSE:
        case KEY: {
          const c = buf[i] as number;
          if (CLASS[c] === WHITESPACE) {
            i++;
            break;
          }
          if (c === QUOTE) {
            const frame = this.frames[this.frames.length - 1];
            this.isKey = true;
            this.collectKey = frame === TOP_OBJECT || frame === DATA_OBJECT;
            keyStart = i;
            state = STRING;
          } else if (c === RBRACE && state === KEY_OR_CLOSE) {
            this.frames.pop();
            state = AFTER_VALUE;
          } else {
            throw this.unexpected(c, offset + i, "where a key should start");
          }
          i++;
          break;
        }

        case KEY_COLON: {
          const c = buf[i] as number;
          if (CLASS[c] === WHITESPACE) {
            i++;
          } else if (c === COLON) {
            state = VALUE;
            i++;
          } else {
            throw this.unexpected(c, offset + i, 'after a key (expected ":")');
          }
          break;
        }
      }
    }

    this.state = state;
    if (skeletonStart >= 0) this.keepSkeleton(buf, skeletonStart, n);
    if (state === STRING && this.isKey && this.collectKey) this.keyParts.push(buf.slice(keyStart, n));
    if (state >= ELEMENT) {
      this.partsBytes += n - elementStart;
      if (this.partsBytes > this.maxElementBytes) throw this.elementTooLarge();
      this.parts.push(buf.slice(elementStart, n));
    }
  }

  private emit(buf: Uint8Array, start: number, end: number, longestString: number): void {
    const size = this.partsBytes + end - start;
    if (size > this.maxElementBytes) throw this.elementTooLarge();
    let bytes: Uint8Array;
    if (this.parts.length === 0) {
      bytes = buf.subarray(start, end);
    } else {
      this.parts.push(buf.subarray(start, end));
      bytes = concat(this.parts, size);
      this.parts.length = 0;
      this.partsBytes = 0;
    }
    this.onElement(bytes, longestString);
  }

  private keepSkeleton(buf: Uint8Array, start: number, end: number): void {
    if (end <= start) return;
    this.skeletonBytes += end - start;
    if (this.skeletonBytes > this.maxSkeletonBytes) {
      throw new AnswerLimitError(
        `The Prometheus answer outside its data array exceeds maxSkeletonBytes (${this.maxSkeletonBytes} bytes).`,
      );
    }
    this.skeleton.push(buf.slice(start, end));
  }

  private decodeKey(last: Uint8Array, position: number): string {
    let bytes = last;
    if (this.keyParts.length > 0) {
      this.keyParts.push(last);
      bytes = concat(
        this.keyParts,
        this.keyParts.reduce((sum, part) => sum + part.length, 0),
      );
      this.keyParts.length = 0;
    }
    try {
      return JSON.parse(UTF8.decode(bytes)) as string;
    } catch {
      throw new AnswerFormatError(`The Prometheus answer has a malformed key ending at byte ${position}.`);
    }
  }

  private noteKey(key: string): void {
    const frame = this.frames[this.frames.length - 1];
    if (frame === TOP_OBJECT && key === "data") {
      if (this.sawData) throw new AnswerFormatError('The Prometheus answer has the key "data" twice.');
      this.sawData = true;
      this.role = DATA_VALUE;
    } else if (frame === DATA_OBJECT && key === this.streamedKey) {
      if (this.sawResult)
        throw new AnswerFormatError(`The Prometheus answer has the key "data.${key}" twice.`);
      this.sawResult = true;
      this.role = RESULT_VALUE;
    }
  }

  private growClosers(): Uint8Array {
    const grown = new Uint8Array(this.closers.length * 2);
    grown.set(this.closers);
    this.closers = grown;
    return grown;
  }

  private elementTooLarge(): AnswerFormatError {
    return new AnswerLimitError(
      `An element of the Prometheus answer's data array exceeds maxElementBytes (${this.maxElementBytes} bytes).`,
    );
  }

  private tooDeep(position: number): AnswerFormatError {
    return new AnswerLimitError(
      `The answer nests arrays and objects more than maxDepth (${this.maxDepth} levels) deep, at byte ${position}.`,
    );
  }

  private unexpected(byte: number, position: number, where: string): AnswerFormatError {
    const shown =
      byte >= 0x20 && byte < 0x7f ? JSON.stringify(String.fromCharCode(byte)) : `byte 0x${byte.toString(16)}`;
    return new AnswerFormatError(`Malformed Prometheus answer: ${shown} at byte ${position} ${where}.`);
  }
}

function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  const joined = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/**
 * The index of the closing quote of a string whose body continues at `i`, or `n` or more when the
 * chunk ends first (`n + 1`: it ended on a backslash, so the next chunk's first byte is escaped).
 */
function stringEnd(buf: Uint8Array, from: number, n: number): number {
  let i = from;
  while (i < n) {
    const d = buf[i];
    if (d === QUOTE) return i;
    i += d === BACKSLASH ? 2 : 1;
  }
  return i;
}
