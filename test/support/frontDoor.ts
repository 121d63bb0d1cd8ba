import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { httpEvent } from "./events.js";
import { listenRecording, type RecordingServer } from "./net.js";
import type { RuntimeApi } from "./runtimeApi.js";

/** The Content-Type of a streamed HTTP answer: a JSON prelude (status, headers), 8 NUL bytes, the body. */
const HTTP_INTEGRATION = "application/vnd.awslambda.http-integration-response";
const PRELUDE_DELIMITER = Buffer.alloc(8);

/** One request the stand-in received: method, path, and the Last-Event-ID it carried. */
export interface FrontDoorCall {
  method: string;
  path: string;
  lastEventId?: string;
}

/** The stand-in, with what it received and a way to break the next SSE answer. */
export interface FrontDoor extends RecordingServer {
  readonly calls: readonly FrontDoorCall[];
  /**
   * Cuts the next SSE answer after its first `afterEvents` events: the client's connection is closed
   * mid-answer, and the function's stream is still read to its end: the function runs on, unheard, as
   * AWS says it may. (Closing the function's stream too is no model of Lambda: the Node runtime client
   * 4.0.2 exits on that, with an unhandled "socket hang up".) Resolves at the cut.
   */
  cutNextStream(afterEvents: number): Promise<void>;
}

interface Cut {
  afterEvents: number;
  done(): void;
}

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
export async function startFrontDoor(api: RuntimeApi, shape: FrontDoorShape = {}): Promise<FrontDoor> {
  const requests: string[] = [];
  const calls: FrontDoorCall[] = [];
  let cut: Cut | undefined;
  const server = createServer(async (req, res) => {
    requests.push(req.url ?? "/");
    const lastEventId = req.headers["last-event-id"];
    calls.push({
      method: req.method ?? "GET",
      path: req.url ?? "/",
      ...(typeof lastEventId === "string" ? { lastEventId } : {}),
    });
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
      const isEvents = (head: Record<string, string>) =>
        Object.entries(head).some(
          ([name, value]) => name.toLowerCase() === "content-type" && value.startsWith("text/event-stream"),
        );
      let thisCut: Cut | undefined;
      await relayStream(
        invoked.stream,
        invoked.contentType === HTTP_INTEGRATION,
        (status, head) => {
          res.writeHead(status, head);
          if (cut !== undefined && isEvents(head)) [thisCut, cut] = [cut, undefined];
        },
        res,
        () => thisCut,
      );
    } catch {
      res.destroy();
    }
  });
  const recording = await listenRecording(server, requests);
  return {
    ...recording,
    url: recording.url,
    requests,
    calls,
    close: () => recording.close(),
    cutNextStream(afterEvents) {
      return new Promise<void>((done) => {
        cut = { afterEvents, done };
      });
    },
  };
}

/** Relays a streamed answer: its prelude (when it has one) as status and headers, the rest as it comes. */
async function relayStream(
  stream: IncomingMessage,
  withPrelude: boolean,
  writeHead: (status: number, headers: Record<string, string>) => void,
  out: ServerResponse,
  cutOf: () => Cut | undefined,
): Promise<void> {
  let pending: Buffer | undefined = withPrelude ? Buffer.alloc(0) : undefined;
  if (!withPrelude) writeHead(200, { "content-type": "application/octet-stream" });
  let events = 0;
  let severed = false;
  /** Writes `chunk` to the client, or only its part up to the cut, then cuts. */
  const relay = (chunk: Buffer): void => {
    const cut = cutOf();
    if (severed) return;
    if (cut === undefined) {
      out.write(chunk);
      return;
    }
    const text = chunk.toString("utf8");
    let at = 0;
    while (events < cut.afterEvents) {
      const block = text.indexOf("\n\n", at);
      if (block < 0) break;
      if (text.slice(at, block).includes("\ndata: ") || text.slice(at, block).startsWith("data: ")) events++;
      at = block + 2;
    }
    if (events < cut.afterEvents) {
      out.write(chunk);
      return;
    }
    severed = true;
    // Cut once what came before is on its way: destroying at once could drop it unsent.
    out.write(Buffer.from(text.slice(0, at), "utf8"), () => {
      out.destroy();
      cut.done();
    });
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (pending === undefined) {
      relay(chunk);
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
    if (rest.length > 0) relay(rest);
  }
  // A severed answer was drained to its end: the function ran on, unheard (a front door that keeps
  // reading after its client went away).
  if (!severed) out.end();
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}
