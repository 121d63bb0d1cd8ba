import { ErrorCode } from "../../mcp/sdk.js";
import { isTenant, TENANT_SET } from "../../prometheus/tenants.js";
import { cutText } from "../../util/text.js";
import type { HttpRequest } from "../event.js";
import { type EdgeMiddleware, isPreflight, type Refusal, refusalAnswer } from "./edge.js";

export interface TenantSettings {
  /** TENANT_CLAIM: the JWT claim naming each caller's tenant; set, a caller without it is refused. */
  claim: string | undefined;
  /** ALLOWED_TENANTS: the tenants a caller's claim may name; empty: any. */
  allowed: readonly string[];
}

/** The caller's tenant, or why it has none this server can use. */
export type TenantDecision = { tenant: string | undefined } | { refusal: Refusal };

/**
 * The one place a request's tenant is decided (TENANT_CLAIM): each caller reads its own tenant's data,
 * the one its token names, so a request without that claim (no JWT: an IAM caller, a Function URL),
 * with one outside the tenant set (`a|b`, which a Mimir with tenant federation reads as two tenants) or
 * naming a tenant outside ALLOWED_TENANTS is refused 403 before anything is read. Nothing the caller
 * sends itself (a tenant header, an argument) can choose another. Without TENANT_CLAIM: no tenant.
 */
export function decideTenant(request: HttpRequest, settings: TenantSettings): TenantDecision {
  const claim = settings.claim;
  if (claim === undefined) return { tenant: undefined };
  const raw = request.claims?.[claim];
  const value = typeof raw === "string" && raw.trim() !== "" ? raw.trim() : undefined;
  if (value === undefined) {
    const message = `Forbidden: this server reads each caller's tenant from its token's ${claim} claim, and this request's token has none`;
    return { refusal: { status: 403, code: ErrorCode.InvalidRequest, message } };
  }
  // Not echoed: it is what the rule refuses (a separator, a control character, any length).
  if (!isTenant(value)) {
    const message = `Forbidden: the token's ${claim} claim is not a tenant this server can use (a tenant is ${TENANT_SET})`;
    return { refusal: { status: 403, code: ErrorCode.InvalidRequest, message } };
  }
  if (settings.allowed.length > 0 && !settings.allowed.includes(value)) {
    const message = `Forbidden: tenant ${cutText(value, 64)} is not one this server serves`;
    return { refusal: { status: 403, code: ErrorCode.InvalidRequest, message } };
  }
  return { tenant: value };
}

/**
 * The tenant rule as a middleware: decides the tenant, which everything after reads from the decision
 * (the request's context carries it to every upstream call), or refuses the request. A preflight
 * carries no token: it is neither refused nor given a tenant.
 */
export function tenantRule(settings: TenantSettings): EdgeMiddleware {
  return {
    name: "tenant",
    before: ({ event }) => {
      if (isPreflight(event.request)) return undefined;
      const decision = decideTenant(event.request, settings);
      if ("refusal" in decision) return refusalAnswer(decision.refusal, event.decided);
      event.decided.tenant = decision.tenant;
      return undefined;
    },
  };
}
