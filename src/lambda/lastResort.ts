import type { MiddyfiedHandler } from "@middy/core";
import type { Context } from "aws-lambda";
import { isHttpEvent } from "../http/event.js";
import { jsonResponse } from "../http/responses.js";
import { ErrorCode, errorReply, serverFault } from "../protocol/jsonrpc.js";
import type { Container } from "./container.js";

type OnError = Parameters<MiddyfiedHandler<unknown, unknown, Error, Context>["onError"]>[0];

/**
 * The answer to a request that failed outside every route (Middy's onError): set first, from
 * constants, so that nothing after it (the log line, the metrics) can undo it. Never throws.
 */
export function lastResort(container: Container): OnError {
  const answer = failedRequestAnswer(container);
  return (request) => {
    request.response = answer(request.event, request.context, request.error);
  };
}

/**
 * The answer to `event`, whose handling failed with `error` outside every route, its failure logged
 * and counted: what lastResort gives Middy, for a handler that writes its own response (the
 * streaming entry). Never throws.
 */
export function failedRequestAnswer(container: Container) {
  return (event: unknown, lambda: Context | undefined, error: unknown): unknown => {
    const timedOut = isMiddyTimeout(error);
    const response = failureAnswer(event, timedOut);
    try {
      const invocation = { lambda, correlationId: lambda?.awsRequestId };
      if (timedOut) container.loggerFor(invocation).warn("request timed out before the handler answered");
      else container.reportFault(error, "handler", invocation);
      // Its metrics alone: the handler wrote no request line.
      container.writeMetricsOnly({
        route: isHttpEvent(event) ? "mcp" : "direct",
        status: timedOut ? 200 : 500,
        era: "none",
        fault: !timedOut,
        timeouts: timedOut ? 1 : 0,
        rehydrations: 0,
        tools: [],
      });
    } catch {
      // A failure to log a failure has nowhere left to go.
    }
    return response;
  };
}

/**
 * What a request that failed outside every route gets: `-32001 Request timed out` (HTTP 200, as the
 * contract answers a deadline) when Middy gave up on it just before Lambda would have, else
 * `-32603 Internal error` (HTTP 500). An HTTP event gets an HTTP response, a direct invocation the
 * JSON-RPC error object itself.
 */
function failureAnswer(event: unknown, timedOut: boolean): unknown {
  const reply = timedOut
    ? errorReply(null, ErrorCode.RequestTimeout, "Request timed out")
    : serverFault(null).message;
  let http = false;
  try {
    http = isHttpEvent(event);
  } catch {
    // An event that cannot even be inspected was not sent by API Gateway.
  }
  return http ? jsonResponse(timedOut ? 200 : 500, reply, { "Access-Control-Allow-Origin": "*" }) : reply;
}

/** Middy's own early timeout (a few ms before Lambda's): the request ran out of time, the server is not at fault. */
function isMiddyTimeout(error: unknown): boolean {
  try {
    return (
      error instanceof Error &&
      error.name === "TimeoutError" &&
      (error.cause as { package?: unknown } | undefined)?.package === "@middy/core"
    );
  } catch {
    return false;
  }
}
