import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { isTenant, TENANT_SET } from "../prometheus/tenants.js";
import { cutText } from "../text.js";
import type { HttpRequest } from "./event.js";
import { present, trimOws } from "./fieldValue.js";

/** A request the HTTP rules refuse: answered with this status and a JSON-RPC error. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}

export interface RuleSettings {
  maxBodyBytes: number;
  allowedOrigins: readonly string[];
  /** Under `serverless offline` the Host header is checked too (DNS rebinding). */
  checkHost: boolean;
  /** JWT_SCOPES: a caller whose JWT holds none of these is refused; empty or absent: no scope is required. */
  requiredScopes?: readonly string[];
  /** TENANT_CLAIM: the JWT claim naming each caller's tenant; set, a caller without it is refused. */
  tenantClaim?: string | undefined;
  /** ALLOWED_TENANTS: the tenants a caller's claim may name; empty or absent: any. */
  allowedTenants?: readonly string[];
}

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

function hostnameOf(hostHeader: string): string {
  const trimmed = trimOws(hostHeader).toLowerCase();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  return trimmed.split(":")[0] ?? "";
}

export function isOriginAllowed(origin: string, allowedOrigins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An allowed origin is echoed in Access-Control-Allow-Origin: only a serialized origin, exactly as
  // browsers send it, is (the URL parser would accept "http://local\nhost" as localhost).
  if (url.origin !== origin) return false;
  if ((url.protocol === "http:" || url.protocol === "https:") && LOCAL_HOSTNAMES.has(url.hostname))
    return true;
  return allowedOrigins.includes("*") || allowedOrigins.includes(url.origin);
}

function isHostAllowed(host: string | undefined): boolean {
  return host === undefined || LOCAL_HOSTNAMES.has(hostnameOf(host));
}

/** The origin/host rule: a browser page on a foreign origin (or a rebinding DNS name locally) is refused. */
export function refuseForeignOrigin(request: HttpRequest, settings: RuleSettings): Refusal | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && !isOriginAllowed(origin, settings.allowedOrigins)) {
    return {
      status: 403,
      code: ErrorCode.InvalidRequest,
      message: `Forbidden: origin ${origin} is not allowed`,
    };
  }
  if (settings.checkHost && !isHostAllowed(request.headers.host)) {
    return { status: 403, code: ErrorCode.InvalidRequest, message: "Forbidden: host is not allowed" };
  }
  return undefined;
}

/** A scope-token of RFC 6749 (3.3): it may stand in a quoted `scope="…"` as it is. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * The scope rule, as API Gateway's JWT authorizer applies a route's AuthorizationScopes: a request
 * whose authorizer checked a JWT (`tokenScopes` set) must hold at least one of the required scopes.
 * This covers what reaches the function without such a route (an API set up by hand, an older stack).
 * Callers without a JWT (IAM, Function URL) are not asked for scopes. 403 as RFC 6750 (3.1) says.
 */
export function refuseMissingScope(request: HttpRequest, settings: RuleSettings): Refusal | undefined {
  const required = settings.requiredScopes ?? [];
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

/** The `claim` of the caller's JWT, trimmed, when it is a non-empty string; else undefined. */
function claimOf(
  request: { claims?: Readonly<Record<string, unknown>> | undefined },
  claim: string,
): string | undefined {
  const value = request.claims?.[claim];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * The tenant `claim` names in the caller's JWT: a tenant of the documented set (isTenant), else
 * undefined. A value outside it never becomes a tenant (refuseWithoutTenant refuses its request).
 */
export function tenantOf(
  request: { claims?: Readonly<Record<string, unknown>> | undefined },
  claim: string,
): string | undefined {
  const value = claimOf(request, claim);
  return value !== undefined && isTenant(value) ? value : undefined;
}

/**
 * The tenant rule (TENANT_CLAIM): each caller reads its own tenant's data, the one its token names,
 * so a request without that claim (no JWT: an IAM caller, a Function URL), with one outside the tenant
 * set (`a|b`, which a Mimir with tenant federation reads as two tenants) or naming a tenant outside
 * ALLOWED_TENANTS is refused 403 before anything is read. Nothing the caller sends itself (a tenant
 * header, an argument) can choose another.
 */
export function refuseWithoutTenant(request: HttpRequest, settings: RuleSettings): Refusal | undefined {
  const claim = settings.tenantClaim;
  if (claim === undefined) return undefined;
  const value = claimOf(request, claim);
  if (value === undefined) {
    return {
      status: 403,
      code: ErrorCode.InvalidRequest,
      message: `Forbidden: this server reads each caller's tenant from its token's ${claim} claim, and this request's token has none`,
    };
  }
  // Not echoed: it is what the rule refuses (a separator, a control character, any length).
  if (!isTenant(value)) {
    return {
      status: 403,
      code: ErrorCode.InvalidRequest,
      message: `Forbidden: the token's ${claim} claim is not a tenant this server can use (a tenant is ${TENANT_SET})`,
    };
  }
  const allowed = settings.allowedTenants ?? [];
  if (allowed.length > 0 && !allowed.includes(value)) {
    return {
      status: 403,
      code: ErrorCode.InvalidRequest,
      message: `Forbidden: tenant ${cutText(value, 64)} is not one this server serves`,
    };
  }
  return undefined;
}

export function refuseOversizeBody(request: HttpRequest, settings: RuleSettings): Refusal | undefined {
  if (request.bodyBytes <= settings.maxBodyBytes) return undefined;
  return {
    status: 413,
    code: ErrorCode.InvalidRequest,
    message: `Request body too large: ${request.bodyBytes} bytes, the limit is ${settings.maxBodyBytes} bytes (MAX_BODY_BYTES)`,
  };
}

function isJsonMediaType(contentType: string): boolean {
  const mediaType = trimOws(contentType.split(";")[0] ?? "").toLowerCase();
  return mediaType === "application/json" || /^application\/[^/\s]+\+json$/.test(mediaType);
}

/** Reads `Accept` as media ranges: `application/json`, `application/*` or `*\/*` with q > 0 admit JSON. */
function acceptsJson(accept: string): boolean {
  return accept.split(",").some((range) => {
    const [type = "", ...parameters] = range.split(";").map((part) => trimOws(part).toLowerCase());
    const quality = parameters.find((parameter) => /^q\s*=/.test(parameter));
    if (quality !== undefined && !(Number(quality.split("=")[1]) > 0)) return false;
    return type === "application/json" || type === "application/*" || type === "*/*";
  });
}

/** The content header rules for `POST /mcp`, in the contract's order, after size, origin and method. */
export function refusePostHeaders(request: HttpRequest): Refusal | undefined {
  const contentType = request.headers["content-type"];
  if (present(contentType) && !isJsonMediaType(contentType)) {
    return {
      status: 415,
      code: ErrorCode.InvalidRequest,
      message: `Unsupported Media Type: Content-Type must be application/json, not ${contentType}`,
    };
  }
  const accept = request.headers.accept;
  if (present(accept) && !acceptsJson(accept)) {
    return {
      status: 406,
      code: ErrorCode.InvalidRequest,
      message: "Not Acceptable: the client must accept application/json",
    };
  }
  return undefined;
}

/** The spec's form of a session id: visible ASCII only; and a length no honest client exceeds. */
export function isWellFormedSessionId(id: string): boolean {
  return id.length > 0 && id.length <= 128 && /^[\x21-\x7E]+$/.test(id);
}
