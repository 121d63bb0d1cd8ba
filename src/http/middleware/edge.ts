import type { MiddlewareObj } from "@middy/core";
import type { Body } from "../../protocol/classify.js";
import type { HttpRequest } from "../event.js";
import { type HttpResponse, jsonRpcErrorResponse } from "../responses.js";

/**
 * What the edge decided of a request, once, for everything after it (the route, the streamed entry's
 * event stream, the request's context): each middleware fills its own field in `before`.
 */
export interface Decided {
  /** The CORS headers every answer to this request carries (cors.ts). */
  cors: Record<string, string>;
  /** The Mcp-Session-Id header as the client sent it; undefined when absent or empty (sessionHeader.ts). */
  sessionId: string | undefined;
  /** The caller's tenant from its token (TENANT_CLAIM), when the deployment maps tenants (tenant.ts). */
  tenant: string | undefined;
  /** A POST's body, parsed once when the rules let it by (jsonBody.ts); undefined for other methods. */
  body: Body | undefined;
}

/** The event the edge chain runs on: the request, and what the chain decided of it so far. */
export interface EdgeEvent {
  request: HttpRequest;
  decided: Decided;
}

/** A request the edge answers itself (a refusal, a preflight): its HTTP response, no JSON-RPC served. */
export interface EdgeAnswer {
  body: HttpResponse;
  status: number;
  methods: readonly string[];
}

/** One HTTP rule: its `before` returns an answer to stop the request there (Middy's early return). */
export type EdgeMiddleware = MiddlewareObj<EdgeEvent, EdgeAnswer>;

/** A request the HTTP rules refuse: answered with this status and a JSON-RPC error. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}

/** The event of a request the chain has not seen yet: nothing decided. */
export function edgeEvent(request: HttpRequest): EdgeEvent {
  return { request, decided: { cors: {}, sessionId: undefined, tenant: undefined, body: undefined } };
}

/** An answer the edge gives itself, as the route gives an answer that served no JSON-RPC. */
export function edgeAnswer(response: HttpResponse): EdgeAnswer {
  return { body: response, status: response.statusCode, methods: [] };
}

/** A refusal as its answer: a JSON-RPC error with the request's CORS headers and the rule's own. */
export function refusalAnswer(refusal: Refusal | undefined, decided: Decided): EdgeAnswer | undefined {
  if (refusal === undefined) return undefined;
  const headers = { ...decided.cors, ...refusal.headers };
  return edgeAnswer(jsonRpcErrorResponse(refusal.status, refusal.code, refusal.message, headers));
}

/** A browser's CORS preflight, which carries no token and no body: the rules about those skip it. */
export function isPreflight(request: HttpRequest): boolean {
  return request.method === "OPTIONS";
}
