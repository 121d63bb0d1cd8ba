import { createServer, type IncomingMessage } from "node:http";
import { httpEvent } from "./events.js";
import { listenRecording, type RecordingServer } from "./net.js";
import type { RuntimeApi } from "./runtimeApi.js";

/** The Content-Type of a streamed HTTP answer: a JSON prelude (status, headers), 8 NUL bytes, the body. */
const HTTP_INTEGRATION = "application/vnd.awslambda.http-integration-response";
const PRELUDE_DELIMITER = Buffer.alloc(8);

/** How the stand-in makes its events. */
export interface FrontDoorShape {
  /** "url": a Function URL's events (the default); "v1": a REST API's (stage "prod"). */
  format?: "url" | "v1";
  /** REST only: how long before the invocation API Gateway stamps the request as received. */
  receivedAgoMs?: number;
}

/**
 * A stand-in for a Lambda Function URL in RESPONSE_STREAM mode (or a REST API whose integration
 * streams) on 127.0.0.1: each request becomes an event for the function behind `api`, and its answer
 * is relayed as the function writes it (streamed: status and headers from the prelude, then the body
 * chunk by chunk), or whole.
 */
export async function startFrontDoor(api: RuntimeApi, shape: FrontDoorShape = {}): Promise<RecordingServer> {
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url ?? "/");
    try {
      const body = await readAll(req);
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(", ") : (value ?? ""),
        ]),
      );
      const event = httpEvent(shape.format ?? "url", {
        method: req.method ?? "GET",
        path: new URL(req.url ?? "/", "http://front-door").pathname,
        headers,
        body: body.length > 0 ? body.toString("utf8") : undefined,
      }) as { requestContext: Record<string, unknown> };
      if (shape.receivedAgoMs !== undefined) {
        event.requestContext.requestTimeEpoch = Date.now() - shape.receivedAgoMs;
      }
      const invoked = await api.invoke(event);
      if ("error" in invoked) {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: "Internal Server Error" }));
        return;
      }
      if ("result" in invoked) {
        const answer = JSON.parse(invoked.result) as {
          statusCode: number;
          headers?: Record<string, string>;
          body?: string;
        };
        res.writeHead(answer.statusCode, answer.headers);
        res.end(answer.body ?? "");
        return;
      }
      await relayStream(
        invoked.stream,
        invoked.contentType === HTTP_INTEGRATION,
        (status, head) => res.writeHead(status, head),
        res,
      );
    } catch {
      res.destroy();
    }
  });
  return listenRecording(server, requests);
}

/** Relays a streamed answer: its prelude (when it has one) as status and headers, the rest as it comes. */
async function relayStream(
  stream: IncomingMessage,
  withPrelude: boolean,
  writeHead: (status: number, headers: Record<string, string>) => void,
  out: NodeJS.WritableStream & { end(): void },
): Promise<void> {
  let pending: Buffer | undefined = withPrelude ? Buffer.alloc(0) : undefined;
  if (!withPrelude) writeHead(200, { "content-type": "application/octet-stream" });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (pending === undefined) {
      out.write(chunk);
      continue;
    }
    pending = Buffer.concat([pending, chunk]);
    const at = pending.indexOf(PRELUDE_DELIMITER);
    if (at < 0) continue;
    const prelude = JSON.parse(pending.subarray(0, at).toString("utf8")) as {
      statusCode?: number;
      headers?: Record<string, string>;
    };
    writeHead(prelude.statusCode ?? 200, prelude.headers ?? {});
    const rest = pending.subarray(at + PRELUDE_DELIMITER.length);
    pending = undefined;
    if (rest.length > 0) out.write(rest);
  }
  out.end();
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}
