// Figure 1: warm per-request cost through the full handler (API Gateway event in, result out), against
// three ways of answering the same request with the MCP SDK (1.32), each fed the same JSON-RPC body:
// - the SDK's recommended stateless pattern: per request a fresh McpServer (our five tools registered) +
//   WebStandardStreamableHTTPServerTransport with JSON responses, the Request built from the event;
// - for tools/list, the lean form of that pattern: per request a fresh plain `Server` answering from a
//   precomputed tool list (our own tools/list answer) + the same transport;
// - for tools/call, a peer that rebuilds nothing: one McpServer built, connected and initialized once,
//   over one InMemoryTransport pair (the SDK's stateless HTTP transport refuses a second request);
// - for tools/call, the same reused server behind a Lambda handler of AWS's own library
//   (@aws/run-mcp-servers-with-aws-lambda: its API Gateway v2 handler with an in-process RequestHandler),
//   which takes the same event ours does. (middy-mcp 0.1.6, the other Lambda peer, cannot run with SDK
//   1.32: it pipes the SDK's zod 4 message schema into zod 3, and answers every request 422.)
// Every row is measured twice: with LOG_LEVEL=SILENT and METRICS=off (nothing written) in the benchmark's
// own process, and at the production defaults (LOG_LEVEL and METRICS unset: INFO, metrics on, one line
// per request) in a child process whose stdout and stderr are pipes that this process reads, as
// Lambda's runtime reads a function's. Between two requests the event loop turns and the handler's
// output leaves the process (untimed), as between two Lambda invocations.
import { APIGatewayProxyEventV2Handler } from "@aws/run-mcp-servers-with-aws-lambda";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  type CallToolResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  type Tool as ListedTool,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { configFromEnvironment } from "../../../src/config/index.js";
import { createHandler } from "../../../src/lambda/app.js";
import { renderToolResult } from "../../../src/mcp/toolResult.js";
import { createUpstream } from "../../../src/prometheus/upstream.js";
import { GetServerInfo, tools } from "../../../tools/index.js";
import type { ToolCall, ToolSettings } from "../../../tools/types.js";
import { testContext } from "../../support/context.js";
import { httpEvent, lambdaContext } from "../../support/events.js";
import { DEFAULT_BUDGET } from "../../support/toolCall.js";
import { childMark, runChild, type Window } from "../child.js";
import type { BenchContext, ChildContext, Handler } from "../context.js";
import { interleave, interleaveMany, type Stats } from "../measure.js";
import type { Figure } from "../report.js";

type Event = Record<string, unknown>;
/** Answers one request: the HTTP body of the answer. */
type Serve = (event: Event) => Promise<string>;
type Mode = "silent" | "info";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };
const CALL = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "GetServerInfo", arguments: {} },
};
const FRESH = "SDK stateless pattern (fresh McpServer + WebStandard transport)";
const LEAN = "lean SDK pattern (fresh Server + precomputed tool list + WebStandard transport)";
const REUSED = "reused SDK server (one McpServer over one InMemoryTransport)";
const AWS_PEER = "@aws/run-mcp-servers-with-aws-lambda v2 handler over the same reused McpServer";
const PRODUCTION = "production defaults (LOG_LEVEL=INFO, metrics on)";
/** Requests whose output the child shows the parent, per case. */
const SAMPLED = 20;

const eventFor = (body: unknown): Event =>
  httpEvent("v2", { method: "POST", path: "/mcp", headers: HEADERS, body: JSON.stringify(body) });

function throughHandler(handler: Handler): Serve {
  return async (event) => {
    const result = (await handler(event, lambdaContext(60_000))) as { statusCode: number; body: string };
    if (result.statusCode !== 200) throw new Error(`handler answered ${result.statusCode}`);
    return result.body;
  };
}

function requestOf(event: Event): Request {
  return new Request(`http://localhost${event.rawPath as string}`, {
    method: "POST",
    headers: event.headers as Record<string, string>,
    body: event.body as string,
  });
}

/** The `result` of a JSON-RPC answer. */
function resultOf(text: string, who: string): Record<string, unknown> {
  const reply = JSON.parse(text) as { result?: Record<string, unknown> };
  if (reply.result === undefined) throw new Error(`${who} answered no result: ${text.slice(0, 500)}`);
  return reply.result;
}

function sameAs(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what} differs from ours: ${JSON.stringify(actual).slice(0, 500)}`);
  }
}

/** The SDK's stateless pattern as its docs give it: everything built per request, then closed. */
function sdkStateless(prometheusUrl: string): Serve {
  const settings: ToolSettings = {
    prometheusUrl,
    prometheusAuth: "sigv4",
    defaultRegion: "us-east-1",
    ampEndpoint: undefined,
    profileSupported: true,
  };
  const upstream = createUpstream(settings);
  const call = (): ToolCall => ({
    settings,
    upstream,
    context: testContext(10_000),
    budget: DEFAULT_BUDGET,
  });
  return async (event) => {
    const server = new McpServer({ name: "sdk-stateless", version: "1" });
    for (const tool of tools) {
      server.registerTool(
        tool.name,
        { description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema },
        async (args: unknown) => {
          const { budget } = call();
          return renderToolResult(await tool.run(args as never, call()), budget);
        },
      );
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(requestOf(event));
    if (response.status !== 200) throw new Error(`SDK pattern answered ${response.status}`);
    const text = await response.text();
    await server.close();
    return text;
  };
}

/** The leanest per-request SDK server for tools/list: a plain Server whose answer is computed already. */
function leanList(listed: ListedTool[]): Serve {
  return async (event) => {
    const server = new Server({ name: "sdk-lean", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(requestOf(event));
    if (response.status !== 200) throw new Error(`lean SDK pattern answered ${response.status}`);
    return response.text();
  };
}

/**
 * One McpServer for the container, built, connected and initialized once, serving a GetServerInfo
 * with our schemas that gives `answer` (our own result); the returned function sends it one message
 * and resolves with its reply.
 */
async function reusedServer(
  answer: CallToolResult,
): Promise<(message: JSONRPCMessage) => Promise<JSONRPCMessage>> {
  const server = new McpServer({ name: "sdk-reused", version: "1" });
  server.registerTool(
    GetServerInfo.name,
    {
      description: GetServerInfo.description,
      inputSchema: GetServerInfo.inputSchema,
      outputSchema: GetServerInfo.outputSchema,
      annotations: GetServerInfo.annotations,
    },
    async () => answer,
  );
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  let waiting: ((reply: JSONRPCMessage) => void) | undefined;
  client.onmessage = (message) => {
    if (!("id" in message) || waiting === undefined) return;
    const resolve = waiting;
    waiting = undefined;
    resolve(message);
  };
  const exchange = (message: JSONRPCMessage) =>
    new Promise<JSONRPCMessage>((resolve, reject) => {
      waiting = resolve;
      client.send(message).catch(reject);
    });
  await server.connect(serverSide);
  await client.start();
  const initialized = await exchange({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    },
  });
  if (!("result" in initialized)) throw new Error(`reused SDK server: initialize failed`);
  await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return exchange;
}

/** The reused server alone. Per request: the body parsed, sent, the reply awaited and serialized. */
function reusedPeer(exchange: (message: JSONRPCMessage) => Promise<JSONRPCMessage>): Serve {
  return async (event) => JSON.stringify(await exchange(JSON.parse(event.body as string) as JSONRPCMessage));
}

/** The reused server behind AWS's Lambda handler, which takes the whole event and answers an HTTP result. */
function awsLambdaPeer(exchange: (message: JSONRPCMessage) => Promise<JSONRPCMessage>): Serve {
  const handler = new APIGatewayProxyEventV2Handler({
    handleRequest: (request: JSONRPCRequest) => exchange(request) as never,
  });
  return async (event) => {
    const result = (await handler.handle(event as never, lambdaContext(60_000))) as {
      statusCode?: number;
      body?: string;
    };
    if (result.statusCode !== 200) throw new Error(`${AWS_PEER} answered ${result.statusCode}`);
    return result.body ?? "";
  };
}

/** Requests `settle` followed, and how many of them left output that the pipe had not taken yet. */
const pipe = { calls: 0, queued: 0 };

/**
 * Between two requests, untimed, what Lambda's runtime gives a function between invocations: the event
 * loop turns and what the handler wrote leaves the process. (A benchmark loop alone runs on microtasks
 * only: once the pipe is full, Node would queue every further line in memory, unwritten.)
 */
async function settle(): Promise<void> {
  pipe.calls++;
  if (process.stdout.writableLength > 0) pipe.queued++;
  await new Promise(setImmediate);
  while (process.stdout.writableLength > 0) await new Promise((resolve) => setTimeout(resolve, 1));
}

function sizes(quick: boolean): { iterations: number; warmup: number } {
  return quick ? { iterations: 50, warmup: 10 } : { iterations: 5_000, warmup: 500 };
}

/** Every row of the figure, ours as `setup.handler` is configured (`mode` names how). */
async function figuresAt(setup: ChildContext, mode: Mode): Promise<Figure[]> {
  const { iterations, warmup } = sizes(setup.quick);
  const ours = throughHandler(setup.handler);
  const list = eventFor(LIST);
  const call = eventFor(CALL);
  const listed = resultOf(await ours(list), "handler").tools as ListedTool[];
  const called = resultOf(await ours(call), "handler") as CallToolResult;
  const fresh = sdkStateless(setup.prometheusUrl);
  const lean = leanList(listed);
  const exchange = await reusedServer(called);
  const reused = reusedPeer(exchange);
  const awsPeer = awsLambdaPeer(exchange);
  // Each baseline answers what ours does (untimed).
  resultOf(await fresh(list), "SDK stateless pattern");
  sameAs(resultOf(await lean(list), LEAN).tools, listed, "the lean SDK pattern's tool list");
  sameAs(resultOf(await reused(call), REUSED), called, "the reused SDK server's GetServerInfo result");
  sameAs(resultOf(await awsPeer(call), AWS_PEER), called, "the AWS Lambda handler's GetServerInfo result");

  const suffix = mode === "info" ? "-info" : "";
  const at = mode === "info" ? PRODUCTION : "LOG_LEVEL=SILENT, metrics off";
  const listBytes = Buffer.byteLength(JSON.stringify(listed));
  const rows = [
    {
      id: `warm-tools-list${suffix}`,
      title: `Warm \`tools/list\` through the handler, ${at}`,
      event: list,
      baseline: { name: FRESH, serve: fresh },
      target: "ours ≥ 3× faster",
      min: 3,
    },
    {
      id: `warm-tools-list-lean${suffix}`,
      title: `Warm \`tools/list\` through the handler vs the lean SDK pattern, ${at}`,
      event: list,
      baseline: { name: LEAN, serve: lean },
      target: mode === "info" ? `≥ 3× at the ${PRODUCTION}` : "≥ 3×",
      min: 3,
      note:
        `baseline per request: \`new Server\` whose tools/list handler returns our own answer's ${listed.length} tools ` +
        `(${listBytes} bytes of JSON, computed once), a stateless WebStandardStreamableHTTPServerTransport with JSON ` +
        "responses, a Request built from the event, the Response's text (nothing closed)",
    },
    {
      id: `warm-tools-call${suffix}`,
      title: `Warm \`tools/call\` (GetServerInfo, answers at once) through the handler, ${at}`,
      event: call,
      baseline: { name: FRESH, serve: fresh },
      target: "ours ≥ 3× faster",
      min: 3,
    },
    {
      id: `warm-tools-call-reused${suffix}`,
      title: `Warm \`tools/call\` (GetServerInfo) through the handler vs a reused SDK server, ${at}`,
      event: call,
      baseline: { name: REUSED, serve: reused },
      target: "≥ 1× (at least as fast as a reused SDK server)",
      min: 1,
      note:
        "baseline: one McpServer per container with GetServerInfo registered (our input and output schemas, " +
        "answering our own result: structuredContent and text), connected once to an InMemoryTransport pair and " +
        "initialized once; per request the event's body is parsed, sent, the reply awaited and serialized. " +
        "The SDK's stateless WebStandard transport cannot be the reused one: it refuses a second request",
    },
    {
      id: `warm-tools-call-aws${suffix}`,
      title: `Warm \`tools/call\` (GetServerInfo) through the handler vs AWS's Lambda handler on a reused SDK server, ${at}`,
      event: call,
      baseline: { name: AWS_PEER, serve: awsPeer },
      target: "≥ 1× (at least as fast as a reused SDK server behind a Lambda handler)",
      min: 1,
      note:
        "baseline: APIGatewayProxyEventV2Handler of @aws/run-mcp-servers-with-aws-lambda 0.5.21 (event parsed, " +
        "Accept and Content-Type checked, each message checked with the SDK's schemas, CORS headers) whose " +
        "in-process RequestHandler forwards to the reused McpServer of the row above",
    },
  ];
  const figures: Figure[] = [];
  for (const row of rows) {
    const [a, b] = await interleave(
      () => ours(row.event),
      () => row.baseline.serve(row.event),
      iterations,
      warmup,
      settle,
    );
    const ratio = b.p50 / a.p50;
    figures.push({
      id: row.id,
      title: row.title,
      unit: "ms",
      ours: a,
      baseline: { name: row.baseline.name, value: b },
      ratio,
      target: row.target,
      met: ratio >= row.min,
      ...(row.note === undefined ? {} : { note: row.note }),
    });
  }
  return figures;
}

/** Environment variables whose defaults are production's: the child runs with them unset. */
const DEFAULTED = [
  "LOG_LEVEL",
  "METRICS",
  "METRICS_NAMESPACE",
  "POWERTOOLS_METRICS_DISABLED",
  "POWERTOOLS_DEV",
  "POWERTOOLS_LOG_LEVEL",
];

/** Ours at the defaults, and two more handlers in the same process that write less. */
interface Cost {
  /** The defaults: the log line with the metrics on it. */
  production: Stats;
  /** LOG_LEVEL=INFO, METRICS=off: the log line alone. */
  logOnly: Stats;
  /** LOG_LEVEL=SILENT, METRICS=off: nothing written. */
  quiet: Stats;
}

/** What the production-defaults child sends back. */
interface InfoResult {
  figures: Figure[];
  cost: Record<"list" | "call", Cost>;
  pipe: typeof pipe;
}

/**
 * The child's job (`BENCH_CHILD=overhead-info`): the rows at the production defaults, then what each
 * request writes (marked for the parent) and what writing it costs, against handlers of this same
 * process that log without metrics and that write nothing.
 */
export async function productionDefaults(setup: ChildContext): Promise<InfoResult> {
  const figures = await figuresAt(setup, "info");
  const variant = (env: Record<string, string>) =>
    throughHandler(createHandler(configFromEnvironment({ ...process.env, ...env })) as unknown as Handler);
  const production = throughHandler(setup.handler);
  const logOnly = variant({ LOG_LEVEL: "INFO", METRICS: "off" });
  const quiet = variant({ LOG_LEVEL: "SILENT", METRICS: "off" });
  const { iterations, warmup } = sizes(setup.quick);
  const cost = {} as InfoResult["cost"];
  for (const [name, event] of [
    ["list", eventFor(LIST)],
    ["call", eventFor(CALL)],
  ] as const) {
    childMark("begin", name);
    for (let i = 0; i < SAMPLED; i++) {
      await production(event);
      await settle();
    }
    childMark("end", name);
    const [a, b, c] = await interleaveMany(
      [() => production(event), () => logOnly(event), () => quiet(event)],
      iterations,
      warmup,
      settle,
    );
    if (a === undefined || b === undefined || c === undefined) throw new Error("three sides, three results");
    cost[name] = { production: a, logOnly: b, quiet: c };
  }
  return { figures, cost, pipe };
}

const micros = (ms: number) => `${ms >= 0 ? "+" : "−"}${Math.abs(ms * 1000).toFixed(1)} µs`;

/** What the handler wrote per request in a marked window, and what writing it cost. */
function outputNote(window: Window | undefined, cost: Cost): string {
  const perRequest = (n: number) => (n / SAMPLED).toFixed(n % SAMPLED === 0 ? 0 : 2);
  const written =
    window === undefined
      ? "stdout not sampled"
      : `per request ${perRequest(window.lines.length)} line(s), ${Math.round(window.bytes / SAMPLED)} bytes, ` +
        `to stdout (with EMF metrics: ${perRequest(window.lines.filter((l) => l.includes('"_aws"')).length)})`;
  return (
    `ours in a child process with ${DEFAULTED.join(", ")} unset, stdout and stderr pipes read by the benchmark ` +
    `process; ${written}; the line costs ${micros(cost.production.p50 - cost.quiet.p50)} at p50 (the log ` +
    `alone ${micros(cost.logOnly.p50 - cost.quiet.p50)}, the metrics on it ` +
    `${micros(cost.production.p50 - cost.logOnly.p50)}: the defaults / INFO with METRICS=off / SILENT with ` +
    `METRICS=off, interleaved in that process, ${cost.production.p50.toFixed(3)} / ${cost.logOnly.p50.toFixed(3)} / ` +
    `${cost.quiet.p50.toFixed(3)} ms)`
  );
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const silent = await figuresAt(ctx, "silent");
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of DEFAULTED) delete env[name];
  const child = await runChild<InfoResult>("overhead-info", env, ctx.quick ? ["--quick"] : []);
  const { figures, cost, pipe: written } = child.result;
  const full = `; ${written.queued} of ${written.calls} requests (all sides) found the pipe full`;
  const stderr = child.stderrBytes > 0 ? `; ${child.stderrBytes} bytes to stderr over the child's run` : "";
  const info = figures.map((figure, i) => {
    const which = figure.id.startsWith("warm-tools-list") ? "list" : "call";
    const quiet = silent[i]?.ours;
    const rows =
      typeof quiet === "object" && typeof figure.ours === "object"
        ? `; ours here ${micros(figure.ours.p50 - quiet.p50)} over the SILENT row at p50`
        : "";
    return { ...figure, note: outputNote(child.windows[which], cost[which]) + rows + full + stderr };
  });
  return silent.flatMap((figure, i) => [figure, ...(info[i] === undefined ? [] : [info[i]])]);
}
