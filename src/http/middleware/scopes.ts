import { ErrorCode } from "../../mcp/sdk.js";
import type { HttpRequest } from "../event.js";
import { type EdgeMiddleware, type Refusal, refusalAnswer } from "./edge.js";

/** A scope-token of RFC 6749 (3.3): it may stand in a quoted `scope="…"` as it is. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * The scope rule, as API Gateway's JWT authorizer applies a route's AuthorizationScopes: a request
 * whose authorizer checked a JWT (`tokenScopes` set) must hold at least one of the required scopes.
 * This covers what reaches the function without such a route (an API set up by hand, an older stack).
 * Callers without a JWT (IAM, Function URL) are not asked for scopes. 403 as RFC 6750 (3.1) says.
 * `required` (JWT_SCOPES) empty: no scope is required.
 */
export function refuseMissingScope(request: HttpRequest, required: readonly string[]): Refusal | undefined {
  const held = request.tokenScopes;
  if (required.length === 0 || held === undefined || required.some((scope) => held.includes(scope))) {
    return undefined;
  }
  const scope = required.every((entry) => SCOPE_TOKEN.test(entry)) ? `, scope="${required.join(" ")}"` : "";
  return {
    status: 403,
    code: ErrorCode.InvalidRequest,
    message: `Forbidden: the token has none of the scopes this server requires (${required.join(", ")})`,
    headers: { "WWW-Authenticate": `Bearer error="insufficient_scope"${scope}` },
  };
}

/**
 * The scope rule as a middleware, first of the refusals, as API Gateway's authorizer checks scopes
 * before anything reaches us (a preflight carries no token, so it has none to refuse).
 */
export function scopeRule(required: readonly string[]): EdgeMiddleware {
  return {
    name: "jwt-scopes",
    before: ({ event }) => refusalAnswer(refuseMissingScope(event.request, required), event.decided),
  };
}
