import { sigv4Mismatch } from "./access.js";
import type { AuthMode, UpstreamAuth } from "./auth.js";
import { type Backend, type BackendKind, hasTenantPlaceholder } from "./backends.js";
import { ControlPlane } from "./controlPlane.js";
import { Credentials } from "./credentials.js";
import { DataPlane, MAX_ANSWER_BYTES } from "./dataPlane.js";
import type { Secret } from "./secrets.js";
import { regionsFor, Workspaces } from "./workspaces.js";

export interface UpstreamSettings {
  /** Fixed Prometheus/AMP workspace URL (`PROMETHEUS_URL`); when it names a workspace, the only one readable besides `allowedWorkspaces`. */
  prometheusUrl: string | undefined;
  /**
   * `sigv4` signs data-plane calls for AMP; `none` talks to a plain Prometheus (or with its URL's
   * user:password@); `basic` and `bearer` send the credentials of `prometheusSecret`.
   */
  prometheusAuth: AuthMode;
  /** PROMETHEUS_SECRET: where the basic-auth pair or bearer token is read from (`basic`, `bearer`). */
  prometheusSecret?: Secret | undefined;
  /** PROMETHEUS_HEADERS: sent on every Prometheus and Alertmanager request (a tenant header). */
  prometheusHeaders?: Readonly<Record<string, string>> | undefined;
  /** TENANT_HEADER with TENANT_CLAIM: where each request carries its caller's tenant. */
  tenantHeader?: string | undefined;
  /** Region used when a call names none; its AWS partition bounds the regions a call may name. */
  defaultRegion: string;
  /** Override of the AMP control-plane endpoint (`AMP_ENDPOINT`). */
  ampEndpoint: string | undefined;
  /** `ALLOWED_WORKSPACES`: workspaces (ids, URLs or ARNs) the function may read besides the one `prometheusUrl` names. */
  allowedWorkspaces?: readonly string[] | undefined;
  /** `ALLOWED_REGIONS`: the only regions a call may use (undefined: any of the function's partition). */
  allowedRegions?: readonly string[] | undefined;
  /** `ALERTMANAGER_URL`: the Alertmanager of a plain Prometheus (AMP's is under the workspace URL). */
  alertmanagerUrl?: string | undefined;
  /** PROMETHEUS_KIND (or what PROMETHEUS_URL says): the kind GetServerInfo reports. */
  prometheusKind?: BackendKind | undefined;
  /** BACKENDS: named servers, each with its own URL, auth and headers (src/prometheus/backends.ts). */
  backends?: readonly Backend[] | undefined;
  /** BACKENDS with no AMP in play: workspace ids are refused. */
  backendsOnly?: boolean | undefined;
}

/** How many entries each per-key cache holds now (each has a fixed bound). */
export interface UpstreamCacheSizes {
  credentialsProviders: number;
  ampClients: number;
  signers: number;
  workspaceEndpoints: number;
}

/** Everything the tools call, with the clients, signers and endpoints it caches for one handler. */
export interface Upstream {
  controlPlane: ControlPlane;
  dataPlane: DataPlane;
  workspaces: Workspaces;
  /** The sizes of the caches above (bounded; for tests and diagnostics). */
  cacheSizes(): UpstreamCacheSizes;
}

export function createUpstream(settings: UpstreamSettings): Upstream {
  const credentials = new Credentials(sigv4Mismatch(settings.prometheusUrl, settings.prometheusAuth));
  const regions = regionsFor(settings.defaultRegion);
  const controlPlane = new ControlPlane(credentials, settings.ampEndpoint, regions);
  const auth: UpstreamAuth = {
    mode: settings.prometheusAuth,
    secret: settings.prometheusSecret,
    headers: settings.prometheusHeaders ?? {},
    // A URL that takes the tenant in its path (VictoriaMetrics cluster) needs no tenant header.
    tenantHeader:
      settings.prometheusUrl !== undefined && hasTenantPlaceholder(settings.prometheusUrl)
        ? undefined
        : settings.tenantHeader,
  };
  const dataPlane = new DataPlane(credentials, auth, { maxAnswerBytes: MAX_ANSWER_BYTES }, regions);
  const workspaces = new Workspaces(controlPlane, settings);
  return {
    controlPlane,
    dataPlane,
    workspaces,
    cacheSizes: () => ({
      credentialsProviders: credentials.cachedProviders,
      ampClients: controlPlane.cachedClients,
      signers: dataPlane.cachedSigners,
      workspaceEndpoints: workspaces.cachedEndpoints,
    }),
  };
}
