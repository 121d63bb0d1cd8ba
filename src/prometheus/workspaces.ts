import type { RequestContext } from "../context.js";
import { ToolError } from "../errors.js";
import type { AmpCallOptions, ControlPlane } from "./controlPlane.js";
import { Memo } from "./memo.js";

const WORKSPACE_REQUIRED_MESSAGE =
  "Workspace ID is required when no Prometheus URL is configured. Please use GetAvailableWorkspaces to list available workspaces and choose one.";

const API_SUFFIX = "/api/v1";

/** Strips trailing slashes and appends `/api/v1` unless the URL already ends with it. */
export function normaliseApiUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith(API_SUFFIX) ? trimmed : `${trimmed}${API_SUFFIX}`;
}

/** The server URL as reported by GetServerInfo: the API URL without `/api/v1`. */
function serverUrlOf(apiUrl: string): string {
  return apiUrl.endsWith(API_SUFFIX) ? apiUrl.slice(0, -API_SUFFIX.length) : apiUrl;
}

/** The AMP workspace id in a URL such as `https://aps-workspaces.<region>.amazonaws.com/workspaces/ws-…/`. */
export function workspaceIdFromUrl(url: string | undefined): string | undefined {
  return url?.match(/\/workspaces\/(ws-[A-Za-z0-9_-]+)/)?.[1];
}

export interface TargetRequest {
  workspaceId?: string | null | undefined;
  region?: string | null | undefined;
  profile?: string | undefined;
}

export interface TargetSettings {
  prometheusUrl: string | undefined;
  defaultRegion: string;
}

export interface Target {
  /** Base of the Prometheus HTTP API, ending in `/api/v1`. */
  apiUrl: string;
  /** The same without `/api/v1`. */
  serverUrl: string;
  region: string;
}

export function resolveRegion(region: string | null | undefined, settings: TargetSettings): string {
  return region ?? settings.defaultRegion;
}

/**
 * Where queries go: a workspace id is resolved to its Prometheus endpoint with one DescribeWorkspace,
 * kept for the life of this object (an id's endpoint never changes), else the configured URL.
 */
export class Workspaces {
  private readonly endpoints = new Memo<Promise<string>>();

  constructor(
    private readonly controlPlane: ControlPlane,
    private readonly settings: TargetSettings,
  ) {}

  /** The workspace's `prometheusEndpoint` (as AMP returns it), from the cache or one DescribeWorkspace. */
  endpoint(workspaceId: string, options: AmpCallOptions, context: RequestContext): Promise<string> {
    return this.endpoints.get([options.region, workspaceId, options.profile], async () => {
      const workspace = await this.controlPlane.describeWorkspace(workspaceId, options, context);
      if (!workspace.prometheusEndpoint) {
        throw new ToolError(
          `Workspace ${workspaceId} in ${options.region} has no Prometheus endpoint yet (status ${workspace.status}); wait until it is ACTIVE.`,
        );
      }
      return workspace.prometheusEndpoint;
    });
  }

  /**
   * Where a query goes: an explicit workspace_id (DescribeWorkspace, cached) wins over PROMETHEUS_URL.
   * Undefined when neither is available.
   */
  async find(request: TargetRequest, context: RequestContext): Promise<Target | undefined> {
    const region = resolveRegion(request.region, this.settings);
    let url: string;
    if (request.workspaceId) {
      url = await this.endpoint(request.workspaceId, { region, profile: request.profile }, context);
    } else if (this.settings.prometheusUrl) {
      url = this.settings.prometheusUrl;
    } else {
      return undefined;
    }
    const apiUrl = normaliseApiUrl(url);
    return { apiUrl, serverUrl: serverUrlOf(apiUrl), region };
  }

  /** Like `find`, but a missing target is the "Workspace ID is required…" error. */
  async resolve(request: TargetRequest, context: RequestContext): Promise<Target> {
    const target = await this.find(request, context);
    if (!target) throw new ToolError(WORKSPACE_REQUIRED_MESSAGE);
    return target;
  }
}
