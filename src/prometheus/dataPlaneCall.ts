// What one data-plane call (dataPlane.ts) is given: where its signature is scoped, its context, attempts and
// their cap, the parameters it works without, who answers, how its server is reached; and the answer's limit.

import type { RequestContext } from "../context.js";
import type { UpstreamAuth } from "./auth.js";

/** One call of the Prometheus HTTP API. */
export interface DataPlaneCall {
  /** Region the SigV4 signature is scoped to. */
  region: string;
  profile: string | undefined;
  /** No attempt starts after its deadline; its signal aborts the running one. */
  context: RequestContext;
  /** Total attempts including the first (default 3). */
  maxAttempts?: number;
  /** Cap of a single attempt (default 30 s), further bounded by the deadline. */
  attemptTimeoutMs?: number;
  /**
   * Parameters the call works without: sent only to servers that have not rejected them (HTTP 400
   * naming the parameter). A server that does is asked again without them, and remembered.
   */
  optionalParams?: readonly string[];
  /** Who answers, as messages name it (default `Prometheus`; `Alertmanager` for its API). */
  service?: Service;
  /**
   * `Authorization: Basic …` for a plain Prometheus whose configured URL carried `user:password@`
   * (`auth: "none"` only: a SigV4 request's Authorization header is its signature).
   */
  basicAuth?: string | undefined;
  /** How this call's server is reached when not as the deployment's (a backend's own auth and headers). */
  auth?: UpstreamAuth | undefined;
}

/** The server a data-plane call reads: a Prometheus HTTP API, or an Alertmanager API. */
export type Service = "Prometheus" | "Alertmanager";

export interface DataPlaneLimits {
  /** Reading stops past this many bytes of one answer: the call fails with advice to narrow the query. */
  maxAnswerBytes: number;
}
