import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { closeServer, listenLoopback } from "./net.js";

/**
 * A small stand-in for the Lambda Runtime API (the HTTP API a runtime client polls inside a Lambda
 * sandbox; AWS ships no emulator this machine can run), on 127.0.0.1: enough for the real Node runtime
 * client (`aws-lambda-ric`) to run a function, one invocation at a time: buffered responses, and
 * streamed ones (`Lambda-Runtime-Function-Response-Mode: streaming`), handed over as they arrive.
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

/**
 * What one invocation came to: the function's result (JSON text), the error the runtime reported, or
 * a streamed response as it arrives (its Content-Type says whether an HTTP prelude comes first).
 */
export type Invoked =
  | { result: string }
  | { error: unknown }
  | { stream: IncomingMessage; contentType: string | undefined };

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
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path);
    const invocation = match ? running.get(decodeURIComponent(match[1] as string)) : undefined;
    const streamed = req.headers["lambda-runtime-function-response-mode"] === "streaming";
    if (req.method === "POST" && match?.[2] === "response" && invocation && streamed) {
      running.delete(invocation.requestId);
      req.once("end", () => accepted(res));
      invocation.settle({ stream: req, contentType: req.headers["content-type"] });
      return;
    }
    const body = await readBody(req);
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
  // Lambda's Runtime API keeps the runtime's connections open. Node's default closes an idle one after 5 s,
  // and a runtime that reuses it just then (a response posted ~5 s after the last) gets ECONNRESET, which
  // aws-lambda-ric does not catch: the runtime exits, and every later invocation fails.
  server.keepAliveTimeout = 0;
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

/** The runtime client's version: 4.x is the one Lambda's nodejs24.x runtime is built on. */
export const RIC = "aws-lambda-ric@4.0.2";

/**
 * AWS's Node runtime client serving `handler` (`file.export`, relative to the task root `task`) against
 * `api`, on Node 24 as the nodejs24.x runtime (npx fetches both once), with Lambda's variables and
 * fake credentials. Kill its process group when done; an exit abandons `api`'s invocations.
 */
export function startRuntimeClient(
  task: string,
  handler: string,
  api: RuntimeApi,
  environment: Record<string, string>,
): ChildProcess {
  const child = spawn("npx", ["-y", "-p", "node@24", "-p", RIC, "--", "aws-lambda-ric", handler], {
    cwd: task,
    env: {
      // npx finds its cache from HOME (or npm_config_cache, where the machine sets one).
      ...inherited(["PATH", "HOME", "npm_config_cache"]),
      AWS_LAMBDA_RUNTIME_API: api.address,
      LAMBDA_TASK_ROOT: task,
      _HANDLER: handler,
      AWS_EXECUTION_ENV: "AWS_Lambda_nodejs24.x",
      AWS_LAMBDA_FUNCTION_NAME: "prometheus-mcp-lambda-ric-mcp",
      AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "512",
      AWS_LAMBDA_LOG_GROUP_NAME: "/aws/lambda/prometheus-mcp-lambda-ric-mcp",
      AWS_LAMBDA_LOG_STREAM_NAME: "ric",
      AWS_REGION: "us-east-1",
      AWS_DEFAULT_REGION: "us-east-1",
      AWS_EC2_METADATA_DISABLED: "true",
      AWS_ACCESS_KEY_ID: "AKIDRICFAKE",
      AWS_SECRET_ACCESS_KEY: "ric-secret-not-real",
      AWS_SESSION_TOKEN: "ric-session-token",
      METRICS: "off",
      ...environment,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  // RIC_OUTPUT=1: the runtime's own output (the function's logs, the client's errors) on stderr.
  if (process.env.RIC_OUTPUT === "1") {
    child.stdout?.pipe(process.stderr);
    child.stderr?.pipe(process.stderr);
  } else {
    child.stdout?.resume();
    child.stderr?.resume();
  }
  child.once("exit", (code, signal) => api.abandon(`the runtime client exited (${code ?? signal})`));
  return child;
}

/** These variables of ours, where they are set. */
function inherited(names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])),
  );
}
