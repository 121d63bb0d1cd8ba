import { Console } from "node:console";
import { Logger, type LogItem } from "@aws-lambda-powertools/logger";
import { type Config, ConfigError, configFromEnvironment, configWarnings } from "../config/index.js";
import type { Invocation } from "../context.js";
import { STDIO_REQUEST_TIMEOUT_MS } from "../deadline.js";
import { mcpServerFactory, SERVER_VERSION } from "../mcp/server.js";
import { serverOptionsOf } from "../mcp/serverOptions.js";
import { redactCredentials } from "../prometheus/urls.js";
import { cutText } from "../util/text.js";
import { RateLimitedLog, StdioLineTransport } from "./stdioLines.js";
import { StdioRequests, trackRequests } from "./stdioRequests.js";

export { STDIO_REQUEST_TIMEOUT_MS };

/** Powertools Logger writing each line to stderr: over stdio, stdout carries JSON-RPC and nothing else. */
class StderrLogger extends Logger {
  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    process.stderr.write(`${JSON.stringify(log.getAttributes(), this.getJsonReplacer())}\n`);
  }
}

/**
 * Serves the tools (TOOLS) to one MCP client over stdin/stdout (`npm run -s stdio`, the
 * `prometheus-mcp-stdio` bin), configured by the same environment variables as the Lambda and
 * checked by the same `configFromEnvironment`. A bad setting writes its one line to stderr and sets
 * a non-zero exit code. Logs go to stderr. The process ends once stdin closes and every request in
 * flight has been answered. No input ends it before: a bad line (over 10 MiB, not JSON,
 * not JSON-RPC) is answered with a JSON-RPC error and logged in one short WARN line (StdioLineTransport).
 *
 * What differs from the Lambda: `profile` arguments are honoured (credentials come from this
 * machine), each request may run for STDIO_REQUEST_TIMEOUT_MS, and the HTTP settings (sessions,
 * origins, body size, JWT, metrics, tracing) are checked but have nothing to act on.
 */
export async function serveStdio(env: Record<string, string | undefined> = process.env): Promise<void> {
  // A dependency's console.log would corrupt the protocol: the console writes to stderr too.
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
  let config: Config;
  try {
    config = configFromEnvironment(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  const logger = new StderrLogger({ serviceName: config.serviceName, logLevel: config.logLevel });
  const reportFault = (error: unknown, where: string, invocation: Invocation | undefined): void => {
    logger.setCorrelationId(invocation?.correlationId);
    logger.error(
      `Unexpected failure in ${where}`,
      error instanceof Error ? error : `a thrown ${typeof error}`,
    );
  };

  const makeServer = mcpServerFactory(serverOptionsOf(config, undefined, true, reportFault));
  const requests = new StdioRequests(STDIO_REQUEST_TIMEOUT_MS, (finished) => {
    logger.setCorrelationId(`rpc-${String(finished.id)}`);
    logger.debug("request", { method: finished.method, outcome: finished.outcome, ms: finished.ms });
  });
  const server = makeServer(requests);
  // Bad input is the client's doing and may come by the megabyte: one short line each (no stack, at
  // most the first 32 characters of the input), at most 10 a second, the rest counted.
  const badInput = new RateLimitedLog((message, attributes) => {
    logger.setCorrelationId(undefined);
    logger.warn(message, attributes);
  });
  server.onerror = (error) =>
    badInput.log("stdio protocol error", { error: boundedText(error.message, STDIO_ERROR_CHARS) });
  const transport = new StdioLineTransport({
    onBadLine: (bad) => badInput.log("stdin line answered with an error", { ...bad }),
  });

  // stdin has ended (its last line handled): the client has gone, answer what it asked and stop.
  transport.onend = () => {
    badInput.flush();
    void requests
      .idle()
      .then(() => server.close())
      .finally(() => {
        // Idle keep-alive sockets to Prometheus must not hold the process; pending writes may finish first.
        setTimeout(() => process.exit(), 1_000).unref();
      });
  };

  await server.connect(trackRequests(transport, requests));
  for (const warning of configWarnings(config, env)) logger.warn(warning);
  logger.info("serving MCP over stdio", {
    version: SERVER_VERSION,
    prometheus_url: config.prometheusUrl === undefined ? "-" : redactCredentials(config.prometheusUrl),
    prometheus_auth: config.prometheusAuth,
    region: config.awsRegion,
  });
}

/** How much of a protocol error's message the log keeps: the SDK's may quote a whole message. */
const STDIO_ERROR_CHARS = 200;

function boundedText(text: string, chars: number): string {
  return cutText(text, chars, `… (${text.length} characters)`);
}
