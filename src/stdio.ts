import { Console } from "node:console";
import { Logger, type LogItem } from "@aws-lambda-powertools/logger";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type Config, ConfigError, configFromEnvironment } from "./config.js";
import type { Invocation } from "./context.js";
import { redactCredentials } from "./prometheus/urls.js";
import { mcpServerFactory, SERVER_VERSION, serverOptionsOf } from "./server.js";
import { StdioRequests, trackRequests } from "./stdioRequests.js";

/**
 * How long one request may run. Nothing stands between the client and this process (behind API
 * Gateway a request has 29 s), so a slow Prometheus gets its full attempts (30 s each, up to 3).
 */
export const STDIO_REQUEST_TIMEOUT_MS = 120_000;

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
 * flight has been answered.
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
  server.server.onerror = (error) => logger.warn("stdio transport error", error);

  await server.connect(trackRequests(new StdioServerTransport(), requests));
  logger.info("serving MCP over stdio", {
    version: SERVER_VERSION,
    prometheus_url: config.prometheusUrl === undefined ? "-" : redactCredentials(config.prometheusUrl),
    prometheus_auth: config.prometheusAuth,
    region: config.awsRegion,
  });

  // The SDK's stdio transport does not notice the end of stdin: the client has gone, answer what it asked and stop.
  process.stdin.once("end", () => {
    void requests
      .idle()
      .then(() => server.close())
      .finally(() => {
        // Idle keep-alive sockets to Prometheus must not hold the process; pending writes may finish first.
        setTimeout(() => process.exit(), 1_000).unref();
      });
  });
}

await serveStdio();
