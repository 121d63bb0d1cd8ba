import { ToolError } from "../errors.js";
import { type ControlPlaneOptions, describeWorkspace } from "./controlPlane.js";

export const WORKSPACE_REQUIRED_MESSAGE =
  "Workspace ID is required when no Prometheus URL is configured. Please use GetAvailableWorkspaces to list available workspaces and choose one.";

const API_SUFFIX = "/api/v1";

/** Strips trailing slashes and appends `/api/v1` unless the URL already ends with it. */
export function normaliseApiUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith(API_SUFFIX) ? trimmed : `${trimmed}${API_SUFFIX}`;
}

/** The server URL as reported by GetServerInfo: the API URL without `/api/v1`. */
export function serverUrlOf(apiUrl: string): string {
  return apiUrl.endsWith(API_SUFFIX) ? apiUrl.slice(0, -API_SUFFIX.length) : apiUrl;
}

/** The AMP workspace id in a URL such as `https://aps-workspaces.<region>.amazonaws.com/workspaces/ws-…/`. */
export function workspaceIdFromUrl(url: string | undefined): string | undefined {
  return url?.match(/\/workspaces\/(ws-[A-Za-z0-9_-]+)/)?.[1];
}

/** Workspace endpoints never change for an id, so they are kept for the container's lifetime. */
const endpoints = new Map<string, Promise<string>>();

function cacheKey(workspaceId: string, region: string, options: ControlPlaneOptions): string {
  return [region, workspaceId, options.profile ?? "", options.endpoint ?? ""].join("\u0000");
}

/** Records an endpoint learned elsewhere (GetAvailableWorkspaces) so a later query needs no DescribeWorkspace. */
export function rememberWorkspaceEndpoint(
  workspaceId: string,
  region: string,
  options: ControlPlaneOptions,
  prometheusEndpoint: string,
): void {
  endpoints.set(cacheKey(workspaceId, region, options), Promise.resolve(prometheusEndpoint));
}

/** The workspace's `prometheusEndpoint` (as AMP returns it), from the cache or one DescribeWorkspace. */
export function workspaceEndpoint(
  workspaceId: string,
  region: string,
  options: ControlPlaneOptions,
): Promise<string> {
  const key = cacheKey(workspaceId, region, options);
  let endpoint = endpoints.get(key);
  if (!endpoint) {
    endpoint = describeWorkspace(workspaceId, region, options).then((workspace) => {
      if (!workspace.prometheusEndpoint) {
        throw new ToolError(
          `Workspace ${workspaceId} in ${region} has no Prometheus endpoint yet (status ${workspace.status}); wait until it is ACTIVE.`,
        );
      }
      return workspace.prometheusEndpoint;
    });
    const pending = endpoint;
    pending.catch(() => {
      if (endpoints.get(key) === pending) endpoints.delete(key);
    });
    endpoints.set(key, pending);
  }
  return endpoint;
}

export interface TargetRequest {
  workspaceId?: string | null | undefined;
  region?: string | null | undefined;
  profile?: string | null | undefined;
}

export interface TargetSettings {
  prometheusUrl: string | undefined;
  defaultRegion: string;
  ampEndpoint: string | undefined;
}

export interface Target {
  /** Base of the Prometheus HTTP API, ending in `/api/v1`. */
  apiUrl: string;
  /** The same without `/api/v1`. */
  serverUrl: string;
  region: string;
  /** Set when the target came from an explicit workspace_id. */
  workspaceId: string | undefined;
}

export function resolveRegion(region: string | null | undefined, settings: TargetSettings): string {
  return region ?? settings.defaultRegion;
}

/**
 * Where a query goes: an explicit workspace_id (DescribeWorkspace, cached) wins over PROMETHEUS_URL.
 * Returns undefined when neither is available.
 */
export async function findTarget(
  request: TargetRequest,
  settings: TargetSettings,
  call: { deadlineAt: number; signal?: AbortSignal },
): Promise<Target | undefined> {
  const region = resolveRegion(request.region, settings);
  let url: string;
  if (request.workspaceId) {
    url = await workspaceEndpoint(request.workspaceId, region, {
      profile: request.profile ?? undefined,
      endpoint: settings.ampEndpoint,
      deadlineAt: call.deadlineAt,
      signal: call.signal,
    });
  } else if (settings.prometheusUrl) {
    url = settings.prometheusUrl;
  } else {
    return undefined;
  }
  const apiUrl = normaliseApiUrl(url);
  return { apiUrl, serverUrl: serverUrlOf(apiUrl), region, workspaceId: request.workspaceId ?? undefined };
}

/** Like findTarget, but a missing target is the "Workspace ID is required…" error. */
export async function resolveTarget(
  request: TargetRequest,
  settings: TargetSettings,
  call: { deadlineAt: number; signal?: AbortSignal },
): Promise<Target> {
  const target = await findTarget(request, settings, call);
  if (!target) throw new ToolError(WORKSPACE_REQUIRED_MESSAGE);
  return target;
}
