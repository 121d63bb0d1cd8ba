import type { Context } from "aws-lambda";
import { type EmfDocument, serializeEmf } from "./emf.js";

/** Where the line goes: stdout, which Lambda sends to CloudWatch Logs (and EMF into metrics). */
export type Write = (text: string) => void;

/**
 * The one line each request writes: its log record (the keys Powertools Logger gives every line) with
 * its metrics (EMF) merged in, in one write. Below INFO the line carries the metrics alone; a batch
 * calling several different tools adds one EMF line per further tool, in the same write.
 *
 * Written here rather than through `logger.info`: Powertools Logger takes about 45 µs to build and
 * serialize this line (a replacer runs on every key), which would double a warm request; a plain
 * JSON.stringify of the same keys takes a few. Every other log line still goes through the Logger.
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
