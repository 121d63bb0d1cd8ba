import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { closeServer, listenLoopback } from "./net.js";

/**
 * A small stand-in for the Lambda Runtime API (the HTTP API a runtime client polls inside a Lambda
 * sandbox; AWS ships no emulator this machine can run), on 127.0.0.1: enough for the real Node runtime
 * client (`aws-lambda-ric`) to run a function, one invocation at a time. Buffered responses only.
 */
export interface RuntimeApi {
  /** `host:port`, as AWS_LAMBDA_RUNTIME_API names it. */
  address: string;
  /** Queues an invocation of `event` and resolves with what the function answered. */
  invoke(event: unknown, options?: { timeoutMs?: number }): Promise<Invoked>;
  /** The error the runtime reported while starting the function, if any. */
  readonly initError: unknown;
  /**
   * Ends every invocation not yet answered, and any asked for later, with `reason` as its error: the
   * runtime is gone (it exited, or could not start the function), so none will be answered.
   */
  abandon(reason: string): void;
  close(): Promise<void>;
}

/** What one invocation came to: the function's result (JSON text) or the error the runtime reported. */
export type Invoked = { result: string } | { error: unknown };

interface Queued {
  requestId: string;
  event: unknown;
  /** The invocation's time limit: its deadline starts when the runtime receives it, as in Lambda. */
  timeoutMs: number;
  settle: (invoked: Invoked) => void;
}

const PREFIX = "/2018-06-01/runtime";
const FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:prometheus-mcp-lambda-ric-mcp";

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.once("error", reject);
  });
}

function accepted(res: ServerResponse): void {
  res.writeHead(202, { "content-type": "application/json" });
  res.end('{"status":"OK"}');
}

export async function startRuntimeApi(): Promise<RuntimeApi> {
  const queue: Queued[] = [];
  const waiting: ServerResponse[] = [];
  const running = new Map<string, Queued>();
  let initError: unknown;
  let abandoned: string | undefined;
  const abandon = (reason: string): void => {
    abandoned ??= reason;
    for (const invocation of [...queue.splice(0), ...running.values()]) invocation.settle({ error: reason });
    running.clear();
  };

  const hand = (res: ServerResponse, next: Queued): void => {
    running.set(next.requestId, next);
    res.writeHead(200, {
      "content-type": "application/json",
      "lambda-runtime-aws-request-id": next.requestId,
      "lambda-runtime-deadline-ms": String(Date.now() + next.timeoutMs),
      "lambda-runtime-invoked-function-arn": FUNCTION_ARN,
      "lambda-runtime-trace-id": `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, "").slice(0, 24)};Sampled=0`,
    });
    res.end(JSON.stringify(next.event));
  };

  const server = createServer(async (req, res) => {
    const path = req.url ?? "";
    if (req.method === "GET" && path === `${PREFIX}/invocation/next`) {
      const next = queue.shift();
      if (next) hand(res, next);
      else waiting.push(res);
      return;
    }
    const body = await readBody(req);
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path);
    const invocation = match ? running.get(decodeURIComponent(match[1] as string)) : undefined;
    if (req.method === "POST" && match && invocation) {
      running.delete(invocation.requestId);
      invocation.settle(match[2] === "response" ? { result: body } : { error: parsed(body) });
      accepted(res);
      return;
    }
    if (req.method === "POST" && path === `${PREFIX}/init/error`) {
      initError = parsed(body);
      accepted(res);
      abandon(`the runtime could not start the function: ${body}`);
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ errorMessage: `no such Runtime API route: ${req.method} ${path}` }));
  });
  const url = await listenLoopback(server);

  return {
    address: url.slice("http://".length),
    invoke(event, options = {}) {
      return new Promise<Invoked>((settle) => {
        if (abandoned !== undefined) {
          settle({ error: abandoned });
          return;
        }
        const queued: Queued = {
          requestId: randomUUID(),
          event,
          timeoutMs: options.timeoutMs ?? 29_000,
          settle,
        };
        const poller = waiting.shift();
        if (poller) hand(poller, queued);
        else queue.push(queued);
      });
    },
    get initError() {
      return initError;
    },
    abandon,
    close() {
      for (const poller of waiting.splice(0)) poller.destroy();
      return closeServer(server);
    },
  };
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
