import { ToolError } from "../errors.js";
import type { Secret } from "./secrets.js";

/**
 * How the data plane authenticates to Prometheus (PROMETHEUS_AUTH): SigV4 for AMP, nothing (or the
 * URL's user:password@), HTTP basic auth or a bearer token read from PROMETHEUS_SECRET.
 */
export type AuthMode = "sigv4" | "none" | "basic" | "bearer";

/** What every data-plane request carries besides its own: the auth mode, its secret, extra headers. */
export interface UpstreamAuth {
  mode: AuthMode;
  /** The basic-auth pair or bearer token (`basic` and `bearer` only). */
  secret?: Secret | undefined;
  /** PROMETHEUS_HEADERS (e.g. `X-Scope-OrgID`), sent on every Prometheus and Alertmanager request. */
  headers: Readonly<Record<string, string>>;
  /**
   * TENANT_HEADER, when tenants come from the callers' tokens (TENANT_CLAIM): each request carries its
   * caller's tenant in it (the request context's `tenant`), and a call without one is refused.
   */
  tenantHeader?: string | undefined;
  /** Where the mode is configured, as messages name it (default PROMETHEUS_AUTH; a backend's `auth`). */
  setting?: string | undefined;
}

/** A call that needs its caller's tenant and has none: nothing is sent for it. */
export function noTenant(): ToolError {
  return new ToolError(
    "This server reads each caller's tenant from its token (TENANT_CLAIM), and this call has none (a direct invocation carries no token): nothing was read.",
    "denied",
  );
}

/**
 * RFC 6750's b64token, the only bearer token a header carries as it is: letters, digits and
 * `- . _ ~ + /`, then `=` only at its end.
 */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** RFC 7617 (by RFC 5234's CTL, %x00-1F and %x7F): neither the user-id nor the password holds one. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * What is wrong with a basic or bearer secret's value as the credentials of `mode`, in words that
 * never quote it; undefined when it makes a valid `Authorization` header. Checked before anything is
 * sent (and at start for a value given as the setting itself), so an HTTP client never sees a value it
 * would refuse, and quote in its error.
 */
export function credentialsProblem(mode: "basic" | "bearer", secret: string): string | undefined {
  if (mode === "bearer") {
    return BEARER_TOKEN.test(secret.trim())
      ? undefined
      : "is not a bearer token: RFC 6750 allows letters, digits and - . _ ~ + / (then = at its end only), no whitespace or other character";
  }
  const pair = basicPair(secret);
  if (pair === undefined) return 'is neither user:password nor JSON {"username": "…", "password": "…"}';
  if (hasControl(pair.username) || hasControl(pair.password)) {
    return "holds a control character (RFC 7617 allows none in the user-id or the password)";
  }
  return undefined;
}

/**
 * The `Authorization` header of a basic or bearer secret. A basic secret is `user:password` or JSON
 * `{"username": …, "password": …}`, sent as UTF-8 in base64; a malformed one is a `misconfigured`
 * error naming where it is kept (`origin`), never what it holds.
 */
export function authorizationOf(mode: "basic" | "bearer", secret: string, origin: string): string {
  const problem = credentialsProblem(mode, secret);
  if (problem !== undefined) {
    throw new ToolError(
      `The ${mode === "basic" ? "basic-auth secret" : "bearer token"} in the ${origin} ${problem}; nothing was sent. Fix the secret's value.`,
      "misconfigured",
    );
  }
  if (mode === "bearer") return `Bearer ${secret.trim()}`;
  const pair = basicPair(secret) as { username: string; password: string };
  return `Basic ${Buffer.from(`${pair.username}:${pair.password}`, "utf8").toString("base64")}`;
}

function basicPair(secret: string): { username: string; password: string } | undefined {
  const text = secret.trim();
  if (text.startsWith("{")) {
    try {
      const { username, password } = JSON.parse(text) as Record<string, unknown>;
      if (
        typeof username === "string" &&
        typeof password === "string" &&
        username !== "" &&
        !username.includes(":")
      ) {
        return { username, password };
      }
    } catch {
      return undefined;
    }
    return undefined;
  }
  const colon = text.indexOf(":");
  if (colon <= 0) return undefined;
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}
