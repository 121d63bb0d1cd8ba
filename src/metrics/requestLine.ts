import type { Context } from "aws-lambda";
import { cutText } from "../util/text.js";
import { type EmfDocument, serializeEmf } from "./emf.js";

/** Where the line goes: stdout, which Lambda sends to CloudWatch Logs (and EMF into metrics). */
export type Write = (text: string) => void;

/**
 * The one line each request writes: its log record (the keys Powertools Logger gives every line) with
 * its metrics (EMF) merged in, in one write. Below INFO the line carries the metrics alone; a batch
 * calling several different tools adds one EMF line per further tool, in the same write.
 *
 * Written here rather than through `logger.info`: Powertools Logger builds and serializes this line
 * with a replacer run on every key, far slower than a plain JSON.stringify of the same keys, and this
 * line is written on every request (bench case warm-tools-list-info, whose note gives the line's cost).
 * Every other log line still goes through the Logger.
 */
export class RequestLine {
  private coldStart = true;

  constructor(
    private readonly service: string,
    private readonly write: Write = (text) => {
      process.stdout.write(text);
    },
  ) {}

  emit(options: {
    /** Write the log record (INFO or more verbose); else only the metrics. */
    log: boolean;
    message: string;
    lambda: Context | undefined;
    correlationId: string | undefined;
    fields: Record<string, unknown>;
    metrics: readonly EmfDocument[];
  }): void {
    const coldStart = this.coldStart;
    this.coldStart = false;
    const [first, ...others] = options.metrics;
    const lines: string[] = [];
    if (options.log) {
      const { lambda } = options;
      const traceId = xrayTraceId();
      const record = {
        level: "INFO",
        message: options.message,
        timestamp: new Date().toISOString(),
        service: this.service,
        cold_start: coldStart,
        ...(lambda === undefined
          ? {}
          : {
              function_arn: lambda.invokedFunctionArn,
              function_memory_size: lambda.memoryLimitInMB,
              function_name: lambda.functionName,
              function_request_id: lambda.awsRequestId,
            }),
        ...(options.correlationId === undefined ? {} : { correlation_id: options.correlationId }),
        ...(traceId === undefined ? {} : { xray_trace_id: traceId }),
        ...options.fields,
      };
      lines.push(first === undefined ? JSON.stringify(record) : serializeEmf(first, record));
    } else if (first !== undefined) {
      lines.push(serializeEmf(first));
    }
    for (const document of others) lines.push(serializeEmf(document));
    if (lines.length > 0) this.write(`${lines.join("\n")}\n`);
  }
}

/** The X-Ray trace id Lambda gives the invocation (`Root=…` of `_X_AMZN_TRACE_ID`), as Powertools logs it. */
function xrayTraceId(): string | undefined {
  const header = process.env._X_AMZN_TRACE_ID;
  if (header === undefined) return undefined;
  const root = header.split(";")[0];
  return root?.startsWith("Root=") ? root.slice("Root=".length) : undefined;
}

/*
 * A DEBUG line is bounded whatever the request, as the request line is: each field takes at most
 * DEBUG_FIELD_BYTES bytes once serialized (a longer string is cut, marked with how long it was; an
 * object or array longer serialized becomes its JSON, cut the same way), at most DEBUG_FIELDS fields
 * are kept, and names and the message are cut like the request line's. So one DEBUG line stays under
 * about 70 KB, well within CloudWatch Logs' 256 KB event, even for a 1 MB request or a 200 KB URL.
 */
export const DEBUG_FIELD_BYTES = 4_096;
export const DEBUG_FIELDS = 16;
const DEBUG_NAME_CHARS = 64;
const DEBUG_MESSAGE_CHARS = 256;

/** A DEBUG log line's writer: a message and its fields. */
export type DebugWriter = (message: string, fields: Record<string, unknown>) => void;

/** `write`, with every line's message and fields bounded (see DEBUG_FIELD_BYTES). */
export function boundedDebug(write: DebugWriter): DebugWriter {
  return (message, fields) => write(cutText(message, DEBUG_MESSAGE_CHARS), boundedFields(fields));
}

/** The fields of a DEBUG line, each within DEBUG_FIELD_BYTES serialized, at most DEBUG_FIELDS of them. */
export function boundedFields(fields: Record<string, unknown>): Record<string, unknown> {
  const bounded: Record<string, unknown> = {};
  const names = Object.keys(fields);
  for (const [index, name] of names.slice(0, DEBUG_FIELDS).entries()) {
    const short = cutText(name, DEBUG_NAME_CHARS);
    // Names cut alike stay apart: no field silently replaces another.
    bounded[Object.hasOwn(bounded, short) ? `${short}#${index}` : short] = boundedValue(fields[name]);
  }
  if (names.length > DEBUG_FIELDS) bounded.fields_left_out = names.length - DEBUG_FIELDS;
  return bounded;
}

/** One field's value, within DEBUG_FIELD_BYTES once serialized: itself when it fits, else cut text. */
function boundedValue(value: unknown): unknown {
  try {
    if (typeof value === "string") return cutSerialized(value, DEBUG_FIELD_BYTES);
    if (value === null || typeof value !== "object") {
      return typeof value === "bigint" || typeof value === "symbol" || typeof value === "function"
        ? cutText(String(value), DEBUG_NAME_CHARS)
        : value;
    }
    if (value instanceof Error) return cutSerialized(`${value.name}: ${value.message}`, DEBUG_FIELD_BYTES);
    const json = JSON.stringify(value) as string | undefined;
    if (json === undefined) return `a ${typeof value}`;
    return Buffer.byteLength(json) <= DEBUG_FIELD_BYTES ? value : cutSerialized(json, DEBUG_FIELD_BYTES);
  } catch {
    // A cycle, a BigInt, a throwing toJSON or getter: the line still goes out.
    return `an unserializable ${Array.isArray(value) ? "array" : typeof value}`;
  }
}

/** UTF-8 bytes of `text` written as a JSON string (quotes and escapes included). */
function serializedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text));
}

/**
 * `text`, or as much of its start as takes at most `maxBytes` serialized, marked with the length it had.
 * Escapes and multi-byte characters count: a string of control characters is cut shorter.
 */
function cutSerialized(text: string, maxBytes: number): string {
  if (text.length <= (maxBytes - 2) / 6 || serializedBytes(text) <= maxBytes) return text;
  const marker = ` [cut from ${text.length} characters]`;
  let keep = Math.min(text.length, maxBytes);
  let head = cutText(text, keep);
  let bytes = serializedBytes(head);
  while (bytes > maxBytes && keep > 0) {
    // Proportionally shorter, and always by at least one character: a few rounds at most.
    keep = Math.min(keep - 1, Math.floor((keep * maxBytes) / bytes));
    head = cutText(text, Math.max(keep, 0));
    bytes = serializedBytes(head);
  }
  return `${head}${marker}`;
}
