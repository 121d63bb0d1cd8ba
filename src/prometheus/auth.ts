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
 * The `Authorization` header of a basic or bearer secret. A basic secret is `user:password` or JSON
 * `{"username": …, "password": …}`; a malformed one is a clear error that never quotes it.
 */
export function authorizationOf(mode: "basic" | "bearer", secret: string, origin: string): string {
  if (mode === "bearer") {
    const token = secret.trim();
    if (/[\s\r\n]/.test(token) || token === "") {
      throw new ToolError(`The bearer token in the ${origin} is empty or holds whitespace.`, "misconfigured");
    }
    return `Bearer ${token}`;
  }
  const pair = basicPair(secret);
  if (pair === undefined) {
    throw new ToolError(
      `The basic-auth secret in the ${origin} is neither user:password nor JSON {"username": "…", "password": "…"}.`,
      "misconfigured",
    );
  }
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
