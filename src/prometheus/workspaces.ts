import type { RequestContext } from "../context.js";
import { ToolError } from "../errors.js";
import { Memo } from "../util/memoize.js";
import {
  type AccessSettings,
  ampRegionOfUrl,
  configuredRegions,
  WorkspaceAccess,
  workspaceIdFromUrl,
  workspaceKey,
} from "./access.js";
import { noTenant, type UpstreamAuth } from "./auth.js";
import { type Backend, type BackendKind, hasTenantPlaceholder, kindOf, withTenant } from "./backends.js";
import type { AmpCallOptions, ControlPlane } from "./controlPlane.js";
import { Regions } from "./regions.js";
import { splitCredentials } from "./urls.js";

export { ampRegionOfUrl, workspaceIdFromUrl } from "./access.js";

const WORKSPACE_REQUIRED_MESSAGE =
  "Workspace ID is required when no Prometheus URL is configured. Please use GetAvailableWorkspaces to list available workspaces and choose one.";

const API_SUFFIX = "/api/v1";

/** Workspace endpoints kept per handler ((region, workspace, profile) keys); the least recently used go first. */
export const MAX_CACHED_ENDPOINTS = 512;

/** Strips trailing slashes and appends `/api/v1` unless the URL already ends with it. */
export function normaliseApiUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith(API_SUFFIX) ? trimmed : `${trimmed}${API_SUFFIX}`;
}

/** The server URL as reported by GetServerInfo: the API URL without `/api/v1`. */
function serverUrlOf(apiUrl: string): string {
  return apiUrl.endsWith(API_SUFFIX) ? apiUrl.slice(0, -API_SUFFIX.length) : apiUrl;
}

export interface TargetRequest {
  workspaceId?: string | null | undefined;
  region?: string | null | undefined;
  profile?: string | undefined;
}

export interface TargetSettings extends AccessSettings {
  defaultRegion: string;
  /** `ALERTMANAGER_URL`: the Alertmanager of a plain Prometheus (AMP's is under the workspace URL). */
  alertmanagerUrl?: string | undefined;
  /**
   * `ALLOWED_REGIONS`: the only regions a call may use, with those of the workspaces named by URL or
   * ARN (allowedRegionsOf); undefined: any region of the function's partition.
   */
  allowedRegions?: readonly string[] | undefined;
  /** PROMETHEUS_KIND (or what PROMETHEUS_URL says): what GetServerInfo reports for the configured URL. */
  prometheusKind?: BackendKind | undefined;
  /** BACKENDS: named servers; a call names one as workspace_id, or goes to the default one. */
  backends?: readonly Backend[] | undefined;
  /** BACKENDS with no AMP in play: a workspace id is refused (only the backends are read). */
  backendsOnly?: boolean | undefined;
  /** TENANT_HEADER with TENANT_CLAIM: where a caller's tenant goes unless a URL takes it in its path. */
  tenantHeader?: string | undefined;
}

export interface Target {
  /** Base of the Prometheus HTTP API, ending in `/api/v1`; never with `user:password@`. */
  apiUrl: string;
  /** The same without `/api/v1` (what GetServerInfo shows). */
  serverUrl: string;
  region: string;
  /** `Authorization: Basic …` for a configured URL that carried `user:password@`. */
  basicAuth?: string | undefined;
  /** What kind of server answers (GetServerInfo). */
  kind: BackendKind;
  /** The backend's name, when BACKENDS names the server. */
  backend?: string | undefined;
  /** How to reach it, when not as every other call (a backend's own auth, headers and tenant placement). */
  auth?: UpstreamAuth | undefined;
}

const regionsByFunctionRegion = new Memo<Regions>(8);

/** The regions a function running in `functionRegion` may use (its partition's). */
export function regionsFor(functionRegion: string): Regions {
  return regionsByFunctionRegion.get([functionRegion], () => new Regions(functionRegion));
}

/** The effective allowed regions per settings object (ALLOWED_REGIONS plus the configured workspaces'). */
const allowedBySettings = new WeakMap<TargetSettings, readonly string[] | undefined>();

/**
 * The regions a call may use: ALLOWED_REGIONS (the regions a deployment's role may call), plus those of
 * the workspaces its configuration names by URL or ARN (config adds them too; settings built elsewhere
 * get them here); undefined: any region of the function's partition.
 */
export function allowedRegionsOf(settings: TargetSettings): readonly string[] | undefined {
  if (settings.allowedRegions === undefined) return undefined;
  let allowed = allowedBySettings.get(settings);
  if (allowed === undefined) {
    allowed = [
      ...new Set([
        ...settings.allowedRegions,
        ...configuredRegions(settings.prometheusUrl, settings.allowedWorkspaces),
      ]),
    ];
    allowedBySettings.set(settings, allowed);
  }
  return allowed;
}

/**
 * The region a call that names none uses: PROMETHEUS_URL's when it is an AMP workspace URL (its host
 * says where the workspace lives), else the function's.
 */
export function homeRegion(settings: TargetSettings): string {
  return ampRegionOfUrl(settings.prometheusUrl) ?? settings.defaultRegion;
}

/**
 * The region a call uses: its `region` argument, else `fallback` (by default homeRegion: the configured
 * AMP URL's, else the function's). A region outside the function's AWS partition, or outside the allowed
 * regions (ALLOWED_REGIONS and the configured workspaces' regions, the regions a deployment's role may
 * call), is a ToolError naming valid ones, before any client, signer or cache entry exists for it.
 */
export function resolveRegion(
  region: string | null | undefined,
  settings: TargetSettings,
  fallback: string = homeRegion(settings),
): string {
  const chosen = regionsFor(settings.defaultRegion).check(region ?? fallback);
  const allowed = allowedRegionsOf(settings);
  if (allowed !== undefined && !allowed.includes(chosen)) {
    throw new ToolError(
      `Region "${chosen}" is not enabled for this deployment, which may use ${allowed.join(", ")} ` +
        `(its \`regions\` parameter and its workspaces' regions). Omit region to use ${fallback}, or ask whoever deploys it to add ${chosen}.`,
      "not_allowed",
    );
  }
  return chosen;
}

/** A Prometheus URL as the data plane uses it: its API base, its server URL, its credentials apart. */
function located(url: string): Pick<Target, "apiUrl" | "serverUrl" | "basicAuth"> {
  const { url: bare, basicAuth } = splitCredentials(url);
  const apiUrl = normaliseApiUrl(bare);
  return { apiUrl, serverUrl: serverUrlOf(apiUrl), ...(basicAuth ? { basicAuth } : {}) };
}

/** A plain Prometheus and no ALERTMANAGER_URL: nowhere to read silences from. */
export class NoAlertmanagerError extends ToolError {
  /** `reported`: where the Prometheus says it sends alerts; `backend`: the BACKENDS entry without one. */
  constructor(
    reported = "",
    readonly backend?: string,
  ) {
    super(
      backend === undefined
        ? `No Alertmanager is configured: a plain Prometheus serves no silences of its own. The deployer sets ALERTMANAGER_URL (the alertmanagerUrl parameter) to the Alertmanager's URL, e.g. http://alertmanager:9093.${reported} (With Amazon Managed Prometheus, pass a workspace_id: its Alertmanager is under the workspace URL.)`
        : `Backend ${backend} has no Alertmanager configured: a plain Prometheus serves no silences of its own. The deployer sets its "alertmanager_url" in BACKENDS (e.g. http://alertmanager:9093, or Mimir's https://mimir.example.com/alertmanager).${reported}`,
      "not_allowed",
    );
  }
}

/**
 * Where queries go: a workspace id is resolved to its Prometheus endpoint with one DescribeWorkspace,
 * kept for the life of this object (an id's endpoint never changes), else the configured URL.
 */
export class Workspaces {
  private readonly endpoints = new Memo<Promise<string>>(MAX_CACHED_ENDPOINTS);
  private configured: Pick<Target, "apiUrl" | "serverUrl" | "basicAuth"> | undefined;
  /** Which workspaces this deployment may read. */
  readonly access: WorkspaceAccess;
  /** BACKENDS by name, each with how the data plane reaches it. */
  private readonly named = new Map<string, { backend: Backend; auth: UpstreamAuth }>();
  /** AMP backends by the workspace their URL names (workspaceKey), in their configured order. */
  private readonly byWorkspace = new Map<string, Backend[]>();

  constructor(
    private readonly controlPlane: ControlPlane,
    private readonly settings: TargetSettings,
  ) {
    this.access = new WorkspaceAccess(settings);
    for (const backend of settings.backends ?? []) {
      const auth: UpstreamAuth = {
        mode: backend.auth,
        secret: backend.secret,
        headers: backend.headers,
        // A URL that takes the tenant in its path (VictoriaMetrics cluster) needs no tenant header.
        tenantHeader: hasTenantPlaceholder(backend.url) ? undefined : settings.tenantHeader,
        setting: `backend "${backend.name}" auth`,
      };
      this.named.set(backend.name, { backend, auth });
      const key = workspaceKey(backend.url);
      if (key !== undefined) this.byWorkspace.set(key, [...(this.byWorkspace.get(key) ?? []), backend]);
    }
  }

  /** BACKENDS, in their configured order; empty without. */
  get backends(): readonly Backend[] {
    return this.settings.backends ?? [];
  }

  /** The backend a call without workspace_id uses; undefined when there is none (or no BACKENDS). */
  get defaultBackend(): Backend | undefined {
    return this.backends.find((backend) => backend.isDefault);
  }

  /** True when the caller's tenant may use the backend (allowed_tenants); every caller when it lists none. */
  mayUse(backend: Backend, context: RequestContext): boolean {
    const allowed = backend.allowedTenants;
    return allowed === undefined || (context.tenant !== undefined && allowed.includes(context.tenant));
  }

  /**
   * The backend a call names (or the default one for a call naming nothing); for a workspace id, the
   * backend whose URL names that workspace (see workspaceBackend); undefined for any other workspace id.
   */
  private backendFor(request: TargetRequest, context: RequestContext): Backend | undefined {
    if (this.settings.backends === undefined) return undefined;
    if (!request.workspaceId) return this.defaultBackend;
    return (
      this.named.get(request.workspaceId)?.backend ?? this.workspaceBackend(request.workspaceId, context)
    );
  }

  /**
   * The backend whose URL names this AMP workspace (its id in any case): a call naming the workspace
   * by id is that backend's call, with its allowed_tenants, region, auth, secret and headers, never the
   * plain AMP path (which knows nothing of tenants). Of several naming it, the first this caller may
   * use (else the first, which refuses it). Undefined when no backend names it.
   */
  workspaceBackend(workspaceId: string, context: RequestContext): Backend | undefined {
    const key = workspaceKey(workspaceId);
    const naming = key === undefined ? undefined : this.byWorkspace.get(key);
    return naming?.find((backend) => this.mayUse(backend, context)) ?? naming?.[0];
  }

  /**
   * Whether this caller's call naming `workspaceId` in `region` is let through: by the rules of the
   * backend that names the workspace (its tenants; an AMP URL's own region only), else by the
   * deployment's allowed workspaces. GetAvailableWorkspaces' `allowed`, the rule `find` applies.
   */
  mayRead(workspaceId: string, region: string, context: RequestContext): boolean {
    const backend = this.workspaceBackend(workspaceId, context);
    if (backend === undefined) return this.access.isAllowed(workspaceId);
    const own = ampRegionOfUrl(backend.url);
    return this.mayUse(backend, context) && (own === undefined || own === region);
  }

  /**
   * Where a backend's calls go, for this caller: refused when its tenant may not use it; the caller's
   * tenant put in a `{tenant}` path; an AMP backend's region from its URL (another is refused).
   */
  private backendTarget(backend: Backend, request: TargetRequest, context: RequestContext): Target {
    if (!this.mayUse(backend, context)) {
      const named =
        request.workspaceId && request.workspaceId !== backend.name
          ? ` (workspace ${request.workspaceId} is its)`
          : "";
      throw new ToolError(
        `Backend ${backend.name}${named} is not open to ${context.tenant === undefined ? "a call without a tenant" : `tenant ${context.tenant}`} (its allowed_tenants); nothing was read. GetAvailableWorkspaces shows which backends you may use.`,
        "not_allowed",
      );
    }
    const own = ampRegionOfUrl(backend.url);
    if (own !== undefined && request.region && request.region !== own) {
      regionsFor(this.settings.defaultRegion).check(request.region);
      throw new ToolError(
        `Backend ${backend.name} is an AMP workspace in ${own} (its URL says so): region "${request.region}" cannot apply. Omit region (or pass ${own}).`,
        "invalid_arguments",
      );
    }
    const region = resolveRegion(request.region, this.settings, own ?? this.settings.defaultRegion);
    const { auth } = this.named.get(backend.name) as { auth: UpstreamAuth };
    return {
      ...located(tenantPlaced(backend.url, context)),
      region,
      kind: backend.kind,
      backend: backend.name,
      auth,
    };
  }

  /** The names a call may pass as workspace_id, for a message: `prod, mimir`. */
  private backendNames(): string {
    return this.backends.map((backend) => backend.name).join(", ");
  }

  /** How many endpoints are cached (at most MAX_CACHED_ENDPOINTS). */
  get cachedEndpoints(): number {
    return this.endpoints.size;
  }

  /** The workspace's `prometheusEndpoint` (as AMP returns it), from the cache or one DescribeWorkspace. */
  endpoint(workspaceId: string, options: AmpCallOptions, context: RequestContext): Promise<string> {
    return this.endpoints.get([options.region, workspaceId, options.profile], async () => {
      const workspace = await this.controlPlane.describeWorkspace(workspaceId, options, context);
      if (!workspace.prometheusEndpoint) {
        throw new ToolError(
          `Workspace ${workspaceId} in ${options.region} has no Prometheus endpoint yet (status ${workspace.status}); wait until it is ACTIVE.`,
          "upstream_failed",
        );
      }
      return workspace.prometheusEndpoint;
    });
  }

  /**
   * Where a query goes: an explicit workspace_id (DescribeWorkspace, cached) wins over PROMETHEUS_URL,
   * if this deployment may read it (else a ToolError, and nothing is sent). Undefined when neither is
   * available.
   */
  async find(request: TargetRequest, context: RequestContext): Promise<Target | undefined> {
    const backend = this.backendFor(request, context);
    if (backend !== undefined) return this.backendTarget(backend, request, context);
    if (request.workspaceId && this.settings.backends !== undefined)
      this.checkWorkspaceId(request.workspaceId);
    if (request.workspaceId) {
      const workspaceId = request.workspaceId;
      this.access.check(workspaceId);
      // A workspace the configuration names by URL or ARN is in that region; a bare id in the stack's.
      const home = this.access.homeRegion(workspaceId) ?? this.settings.defaultRegion;
      if (request.region) {
        regionsFor(this.settings.defaultRegion).check(request.region);
        this.access.checkRegion(workspaceId, request.region);
      }
      const region = resolveRegion(request.region, this.settings, home);
      const url = await this.endpoint(workspaceId, { region, profile: request.profile }, context);
      return { ...located(url), region, kind: "amp" };
    }
    const configuredUrl = this.settings.prometheusUrl;
    if (!configuredUrl) return undefined;
    const region = this.configuredRegion(request.region);
    const kind = this.settings.prometheusKind ?? kindOf(configuredUrl, undefined);
    if (hasTenantPlaceholder(configuredUrl)) {
      return { ...located(tenantPlaced(configuredUrl, context)), region, kind };
    }
    // Parsing a URL costs microseconds; the configured one is parsed once.
    this.configured ??= located(configuredUrl);
    return { ...this.configured, region, kind };
  }

  /** With BACKENDS, workspace_id is a backend's name or (unless only backends are read) a workspace id. */
  private checkWorkspaceId(workspaceId: string): void {
    const isWorkspace = /^ws-/.test(workspaceId);
    if (isWorkspace && !this.settings.backendsOnly) return;
    const which = isWorkspace
      ? `This deployment reads its backends only, not AMP workspaces: pass one of ${this.backendNames()} as workspace_id.`
      : `No backend is named ${JSON.stringify(workspaceId)}: pass one of ${this.backendNames()}${this.settings.backendsOnly ? "" : " (or an AMP workspace id, ws-…)"} as workspace_id.`;
    throw new ToolError(`${which} GetAvailableWorkspaces describes them.`, "invalid_arguments");
  }

  /**
   * The region of a call to the configured URL: an AMP URL's own (from its host), which a call naming
   * another region cannot change (the workspace lives there: a ToolError); else the call's or the
   * function's, as for any call.
   */
  private configuredRegion(asked: string | null | undefined): string {
    const own = this.access.configuredRegion;
    if (own !== undefined && asked && asked !== own) {
      regionsFor(this.settings.defaultRegion).check(asked);
      const which =
        this.access.configuredId === undefined ? "an AMP URL" : `workspace ${this.access.configuredId}`;
      throw new ToolError(
        `The configured Prometheus URL is ${which} in ${own} (its host says so): a call without workspace_id goes there, so region "${asked}" cannot apply. Omit region (or pass ${own}); to query a workspace in ${asked}, pass its workspace_id with the region.`,
        "invalid_arguments",
      );
    }
    return resolveRegion(asked, this.settings, own ?? this.settings.defaultRegion);
  }

  /**
   * Where Alertmanager's API (`…/api/v2`) is for the same request: under an AMP workspace's URL
   * (`<workspace>/alertmanager/api/v2`), else ALERTMANAGER_URL; a plain Prometheus without it has none
   * to offer (a ToolError saying what to configure).
   */
  async alertmanager(request: TargetRequest, context: RequestContext): Promise<Target> {
    const backend = this.backendFor(request, context);
    if (backend !== undefined) return this.backendAlertmanager(backend, request, context);
    const configured = this.settings.alertmanagerUrl;
    if (!request.workspaceId && configured !== undefined) {
      const region = resolveRegion(request.region, this.settings);
      const { url, basicAuth } = splitCredentials(tenantPlaced(configured, context));
      const kind = this.settings.prometheusKind ?? kindOf(this.settings.prometheusUrl, undefined);
      return { apiUrl: `${url.replace(/\/+$/, "")}/api/v2`, serverUrl: url, region, basicAuth, kind };
    }
    const prometheus = await this.resolve(request, context);
    if (!request.workspaceId && workspaceIdFromUrl(prometheus.serverUrl) === undefined) {
      throw new NoAlertmanagerError();
    }
    return underWorkspace(prometheus);
  }

  /** A backend's Alertmanager: its alertmanager_url, else under its AMP workspace URL; else none to read. */
  private backendAlertmanager(backend: Backend, request: TargetRequest, context: RequestContext): Target {
    const prometheus = this.backendTarget(backend, request, context);
    if (backend.alertmanagerUrl !== undefined) {
      const { url, basicAuth } = splitCredentials(tenantPlaced(backend.alertmanagerUrl, context));
      return { ...prometheus, apiUrl: `${url.replace(/\/+$/, "")}/api/v2`, serverUrl: url, basicAuth };
    }
    if (workspaceIdFromUrl(prometheus.serverUrl) !== undefined) return underWorkspace(prometheus);
    throw new NoAlertmanagerError("", backend.name);
  }

  /** Like `find`, but a missing target is the "Workspace ID is required…" error. */
  async resolve(request: TargetRequest, context: RequestContext): Promise<Target> {
    const target = await this.find(request, context);
    if (target) return target;
    if (this.settings.backends !== undefined) {
      throw new ToolError(
        `This deployment has several backends and no default: pass one of ${this.backendNames()} as workspace_id. GetAvailableWorkspaces describes them.`,
        "invalid_arguments",
      );
    }
    if (this.access.limited) {
      throw new ToolError(
        `Workspace ID is required when no Prometheus URL is configured. This deployment may read ${this.access.list()}: pass one of them as workspace_id.`,
        "invalid_arguments",
      );
    }
    throw new ToolError(WORKSPACE_REQUIRED_MESSAGE, "invalid_arguments");
  }
}

/** An AMP workspace's Alertmanager: `<workspace>/alertmanager/api/v2`. */
function underWorkspace(prometheus: Target): Target {
  const serverUrl = `${prometheus.serverUrl.replace(/\/+$/, "")}/alertmanager`;
  return { ...prometheus, apiUrl: `${serverUrl}/api/v2`, serverUrl };
}

/**
 * The URL with the caller's tenant in its `{tenant}` (VictoriaMetrics cluster's select path); a URL
 * without one as it is. A call without a tenant, or with one that cannot go in a path, reads nothing.
 */
function tenantPlaced(url: string, context: RequestContext): string {
  if (!hasTenantPlaceholder(url)) return url;
  const tenant = context.tenant;
  if (tenant === undefined) throw noTenant();
  const placed = withTenant(url, tenant);
  if (placed === undefined) {
    throw new ToolError(
      "The caller's tenant cannot go in the server's URL path (it takes letters, digits and . _ : - only): nothing was read.",
      "denied",
    );
  }
  return placed;
}
