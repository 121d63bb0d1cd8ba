import middy from "@middy/core";
import type { HttpRequest } from "../../src/http/event.js";
import { normalizeEvent } from "../../src/http/event.js";
import type { Decided, EdgeAnswer, EdgeEvent, EdgeMiddleware } from "../../src/http/middleware/index.js";
import { edgeEvent } from "../../src/http/middleware/index.js";
import { emptyResponse } from "../../src/http/responses.js";
import { type HttpCall, httpEvent, lambdaContext } from "./events.js";

/** What a request became at the edge: the answer a rule gave, or what the route would be given. */
export type EdgeOutcome = { refused: EdgeAnswer } | { passed: Decided };

/** What the route answers in these tests: nothing the rules would write. */
const ROUTE_STATUS = 299;

/** An HTTP request as the front door delivers it (API Gateway HTTP API), with a JWT's claims if given. */
export function edgeRequest(call: Partial<HttpCall>, jwt: Partial<HttpRequest> = {}): HttpRequest {
  const request = normalizeEvent(httpEvent("v2", { method: "POST", path: "/mcp", ...call }));
  if (request.kind !== "http") throw new Error("not an HTTP event");
  return { ...request, ...jwt };
}

/** Runs the middlewares with Middy in front of a route that records what reached it. */
export async function throughEdge(middlewares: EdgeMiddleware[], request: HttpRequest): Promise<EdgeOutcome> {
  let reached: Decided | undefined;
  const route = async (event: EdgeEvent): Promise<EdgeAnswer> => {
    reached = event.decided;
    return { body: emptyResponse(ROUTE_STATUS, {}), status: ROUTE_STATUS, methods: [] };
  };
  const answer = await middy(route, { timeoutEarlyInMillis: 0 }).use(middlewares)(
    edgeEvent(request),
    lambdaContext(),
  );
  if (reached !== undefined) {
    if (answer.status !== ROUTE_STATUS) throw new Error("the route's answer was replaced");
    return { passed: reached };
  }
  return { refused: answer };
}

/** The refusal's answer, failing the test when the request passed. */
export function refusedBy(outcome: EdgeOutcome): EdgeAnswer {
  if (!("refused" in outcome)) throw new Error("the request passed the edge");
  return outcome.refused;
}

/** What the edge decided, failing the test when it refused the request. */
export function passedWith(outcome: EdgeOutcome): Decided {
  if (!("passed" in outcome)) throw new Error(`refused: ${outcome.refused.body.body}`);
  return outcome.passed;
}
