import { bodyLimitRule } from "./bodyLimit.js";
import { contentHeadersRule } from "./contentHeaders.js";
import { corsDecision, corsPreflight } from "./cors.js";
import type { EdgeMiddleware } from "./edge.js";
import { jsonBody } from "./jsonBody.js";
import { originRule } from "./origin.js";
import { scopeRule } from "./scopes.js";
import { sessionHeader } from "./sessionHeader.js";
import { tenantRule } from "./tenant.js";

export type { Decided, EdgeAnswer, EdgeEvent, EdgeMiddleware, Refusal } from "./edge.js";
export { edgeEvent } from "./edge.js";

/** What the HTTP rules of `/mcp` are set with (the route's options carry them). */
export interface EdgeSettings {
  maxBodyBytes: number;
  allowedOrigins: readonly string[];
  /** Under `serverless offline` the Host header is checked too (DNS rebinding). */
  checkHost: boolean;
  /** JWT_SCOPES: a caller whose JWT holds none of these is refused; empty: no scope is required. */
  requiredScopes: readonly string[];
  /** TENANT_CLAIM: the JWT claim naming each caller's tenant; set, a caller without it is refused. */
  tenantClaim: string | undefined;
  /** ALLOWED_TENANTS: the tenants a caller's claim may name; empty: any. */
  allowedTenants: readonly string[];
}

/**
 * The HTTP rules in front of `/mcp`, in the contract's order of precedence, composed once for the
 * buffered and the streamed entries (app.ts). The decisions come first (CORS headers, so every
 * refusal carries them; the session header); then the refusals: the token's scopes, as API Gateway's
 * authorizer checks them before anything reaches us; its tenant; the body's size; the origin (and
 * host); then a preflight is answered; then a POST's content headers. The first refusal answers; a POST that passed has its body parsed.
 */
export function edgeMiddlewares(settings: EdgeSettings): EdgeMiddleware[] {
  return [
    corsDecision(settings.allowedOrigins),
    sessionHeader,
    scopeRule(settings.requiredScopes),
    tenantRule({ claim: settings.tenantClaim, allowed: settings.allowedTenants }),
    bodyLimitRule(settings.maxBodyBytes),
    originRule(settings),
    corsPreflight,
    contentHeadersRule,
    jsonBody,
  ];
}
