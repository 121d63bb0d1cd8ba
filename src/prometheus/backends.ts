import { ampRegionOfUrl, workspaceIdFromUrl } from "./access.js";
import type { AuthMode } from "./auth.js";
import type { Secret, SecretSource } from "./secrets.js";
import { isTenant } from "./tenants.js";

/**
 * BACKENDS' servers as the rest of the application sees them: their kinds, their URLs with a caller's
 * tenant. Reading BACKENDS (its JSON, each entry's fields) is src/config/backends.ts's.
 */

/** What kind of server a backend is (GetServerInfo, GetAvailableWorkspaces): what a caller may expect of it. */
export const BACKEND_KINDS = ["amp", "prometheus", "mimir", "cortex", "thanos", "victoriametrics"] as const;
export type BackendKind = (typeof BACKEND_KINDS)[number];

/** A backend as the configuration describes it (src/config/backends.ts reads BACKENDS into these). */
export interface BackendSpec {
  name: string;
  /** Its Prometheus URL; `{tenant}` in its path is each caller's tenant (VictoriaMetrics cluster). */
  url: string;
  auth: AuthMode;
  secret?: SecretSource | undefined;
  headers: Readonly<Record<string, string>>;
  alertmanagerUrl?: string | undefined;
  kind: BackendKind;
  description?: string | undefined;
  /** The backend a call without workspace_id uses (the only one, or the one marked `default`). */
  isDefault: boolean;
  /** The tenants (TENANT_CLAIM) that may use it; undefined: every caller. */
  allowedTenants?: readonly string[] | undefined;
}

/** `{tenant}` in a URL: the caller's tenant goes there (raw, or as `new URL` writes it). */
const TENANT_PLACEHOLDER = /\{tenant\}|%7Btenant%7D/gi;

/** True when the URL takes the caller's tenant in its path. */
export function hasTenantPlaceholder(url: string): boolean {
  TENANT_PLACEHOLDER.lastIndex = 0;
  const found = TENANT_PLACEHOLDER.test(url);
  TENANT_PLACEHOLDER.lastIndex = 0;
  return found;
}

/**
 * The URL with the caller's tenant in place of `{tenant}`; undefined when the tenant cannot go in a
 * path. A tenant (src/prometheus/tenants.ts) holds VictoriaMetrics' `<accountID>[:<projectID>]` and
 * names of letters, digits, `.`, `_` and `-`: never `/`, `..`, `%` or anything that changes the path.
 */
export function withTenant(url: string, tenant: string): string | undefined {
  if (!isTenant(tenant)) return undefined;
  return url.replace(TENANT_PLACEHOLDER, tenant);
}

/** VictoriaMetrics cluster's select path: `/select/<accountID>[:<projectID>]/prometheus`. */
const VICTORIA_CLUSTER_PATH = /\/select\/(?:\{tenant\}|%7Btenant%7D|\d+(?::\d+)?)\/prometheus(?:\/|$)/i;

/** The kind of a server at `url`: as declared, else AMP's URL says amp, vmselect's path victoriametrics, else prometheus. */
export function kindOf(url: string | undefined, declared: BackendKind | undefined): BackendKind {
  if (declared !== undefined) return declared;
  if (url === undefined) return "amp";
  if (workspaceIdFromUrl(url) !== undefined || ampRegionOfUrl(url) !== undefined) return "amp";
  return VICTORIA_CLUSTER_PATH.test(url) ? "victoriametrics" : "prometheus";
}

/** A backend as the tools use it: its secret is read (once per container) where it is kept. */
export interface Backend extends Omit<BackendSpec, "secret"> {
  secret?: Secret | undefined;
}
