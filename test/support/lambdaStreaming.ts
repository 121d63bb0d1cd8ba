import { Writable } from "node:stream";

// The two globals the Node Lambda runtime gives a streaming handler (`awslambda.streamifyResponse`,
// `awslambda.HttpResponseStream`), for running the streaming entry in this process: the contract
// suite's second run. They behave as AWS's runtime client 4.0.2 does (the framing the front doors read:
// a JSON prelude with status and headers, 8 NUL bytes, then the body, the prelude sent on the first
// write), which the end-to-end tests run for real (test/e2e/streamingFrontDoor.test.ts).

/** A Lambda handler as the tests call it: (event, context) → its result. */
type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const HTTP_INTEGRATION = "application/vnd.awslambda.http-integration-response";
const DELIMITER = Buffer.alloc(8);

/** What the runtime's response stream records: its content type and every byte written. */
class RecordedStream extends Writable {
  contentType = "application/octet-stream";
  readonly chunks: Buffer[] = [];
  beforeFirstWrite: (() => void) | undefined;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(Buffer.from(chunk));
    done();
  }

  override write(chunk: unknown, ...rest: unknown[]): boolean {
    const first = this.beforeFirstWrite;
    this.beforeFirstWrite = undefined;
    first?.();
    return (super.write as (chunk: unknown, ...rest: unknown[]) => boolean)(chunk, ...rest);
  }

  setContentType(type: string): void {
    this.contentType = type;
  }
}

let installed = false;

/** Installs the runtime's globals (once, unless the process has them: the test runner may define an empty `awslambda`). */
export function installStreamingRuntime(): void {
  const existing = (globalThis as { awslambda?: { streamifyResponse?: unknown } }).awslambda;
  if (installed || typeof existing?.streamifyResponse === "function") return;
  installed = true;
  (globalThis as Record<string, unknown>).awslambda = {
    ...existing,
    streamifyResponse: (handler: unknown) => handler,
    HttpResponseStream: {
      from(stream: RecordedStream, prelude: Record<string, unknown>) {
        stream.setContentType(HTTP_INTEGRATION);
        const write = (chunk: Buffer | string) =>
          Writable.prototype.write.call(stream, chunk, "utf8", () => {});
        stream.beforeFirstWrite = () => {
          write(JSON.stringify(prelude));
          write(DELIMITER);
        };
        return stream;
      },
    },
  };
}

/**
 * A streaming handler (event, responseStream, context) called as a buffered one: its response read
 * back as a front door reads it. An HTTP answer comes back as { statusCode, headers, body }, a direct
 * invocation's as its JSON value.
 */
export function asBuffered(
  streaming: (event: unknown, stream: Writable, context: unknown) => Promise<void>,
): Handler {
  return async (event, context) => {
    const stream = new RecordedStream();
    await streaming(event, stream, context);
    if (!stream.writableFinished) await new Promise((resolve) => stream.once("finish", resolve));
    const bytes = Buffer.concat(stream.chunks);
    if (stream.contentType !== HTTP_INTEGRATION) return JSON.parse(bytes.toString("utf8"));
    const at = bytes.indexOf(DELIMITER);
    const prelude = JSON.parse(bytes.subarray(0, at).toString("utf8")) as {
      statusCode: number;
      headers: Record<string, string>;
    };
    return { ...prelude, body: bytes.subarray(at + DELIMITER.length).toString("utf8") };
  };
}
