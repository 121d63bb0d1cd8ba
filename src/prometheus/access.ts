import { ToolError } from "../errors.js";
import type { AuthMode } from "./auth.js";
import { REGION_SYNTAX } from "./regions.js";
import { redactCredentials } from "./urls.js";

/** The longest AMP workspace id, its `ws-` included. */
export const WORKSPACE_ID_MAX_LENGTH = 100;

/** What follows an AMP workspace id's `ws-`: letters, digits, `_` and `-`. */
const WORKSPACE_ID_CHARACTER = "[A-Za-z0-9_-]";

/** An AMP workspace id (unanchored: the id part of the URL and ARN patterns): `ws-` and 1 to 97 more. */
const WORKSPACE_ID_SYNTAX = `ws-${WORKSPACE_ID_CHARACTER}{1,${WORKSPACE_ID_MAX_LENGTH - 3}}`;

/** An AMP workspace id, as ALLOWED_WORKSPACES lists them. */
export const WORKSPACE_ID = new RegExp(`^${WORKSPACE_ID_SYNTAX}$`);

/**
 * The form of an AMP workspace id, whatever its length: a tool parameter checks the length apart
 * (WORKSPACE_ID_MAX_LENGTH), to say "too long" rather than "not an id". With that check, it accepts
 * exactly what WORKSPACE_ID does.
 */
export const WORKSPACE_ID_FORM = new RegExp(`^ws-${WORKSPACE_ID_CHARACTER}+$`);

/** The workspace id in a URL's `/workspaces/ws-…` (all of it, however long). */
const URL_WORKSPACE = new RegExp(`/workspaces/(ws-${WORKSPACE_ID_CHARACTER}+)`);

/** A URL path naming a workspace: `/workspaces/ws-…`, alone or followed by `/…`; group 1 is the id. */
const URL_PATH_WORKSPACE = new RegExp(`^/workspaces/(${WORKSPACE_ID_SYNTAX})(?:/|$)`);

/** The AMP workspace id in a URL such as `https://aps-workspaces.<region>.amazonaws.com/workspaces/ws-…/`. */
export function workspaceIdFromUrl(url: string | undefined): string | undefined {
  return url?.match(URL_WORKSPACE)?.[1];
}

/** `/workspaces/ws-…` in any case: how a backend's URL is matched against a call's workspace id. */
const URL_WORKSPACE_ANY_CASE = new RegExp(`/workspaces/(ws-${WORKSPACE_ID_CHARACTER}+)`, "i");

/**
 * The key of the workspace a URL names (`…/workspaces/ws-…`, its id in any case, percent-escaped or
 * not), or of a workspace id: the id lower-cased. Two spellings that could reach one workspace get one
 * key, so a call naming a backend's workspace by id, however it writes it, finds that backend.
 */
export function workspaceKey(urlOrId: string): string | undefined {
  if (/^ws-/i.test(urlOrId)) return urlOrId.toLowerCase();
  let decoded = urlOrId;
  try {
    decoded = decodeURIComponent(urlOrId);
  } catch {
    // A malformed escape: matched as written.
  }
  return URL_WORKSPACE_ANY_CASE.exec(decoded)?.[1]?.toLowerCase();
}

/** AMP's data-plane host: `aps-workspaces[-fips].<region>.amazonaws.com[.cn]`; group 1 is the region. */
const AMP_HOST = new RegExp(
  String.raw`^aps-workspaces(?:-fips)?\.(${REGION_SYNTAX.source})\.amazonaws\.com(?:\.cn)?$`,
);

/** `arn:<partition>:aps:<region>:<account>:workspace/ws-…`. */
const WORKSPACE_ARN = new RegExp(
  String.raw`^arn:(aws(?:-[a-z]+)*):aps:(${REGION_SYNTAX.source}):(\d{12}):workspace/(${WORKSPACE_ID_SYNTAX})$`,
);

/**
 * The AWS region of an AMP URL, from its host (`aps-workspaces.eu-west-1.amazonaws.com` → eu-west-1):
 * where the workspace it names lives, and so the region its requests are signed for. Undefined for any
 * other URL (a plain Prometheus, a local stand-in) and for no URL.
 */
export function ampRegionOfUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return AMP_HOST.exec(new URL(url).hostname)?.[1];
  } catch {
    return undefined;
  }
}

/** True for a URL on AWS (an AMP workspace, a VPC endpoint of one): the URLs SigV4 signing is for. */
function isAwsUrl(url: string): boolean {
  if (workspaceIdFromUrl(url) !== undefined) return true;
  try {
    const host = new URL(url).hostname;
    return host.endsWith(".amazonaws.com") || host.endsWith(".amazonaws.com.cn");
  } catch {
    return false;
  }
}

/**
 * What to do when calls to a URL that is not AMP's would be SigV4-signed (PROMETHEUS_AUTH=sigv4, the
 * default, with a plain Prometheus URL): said once at start, and again by every credentials error.
 * Undefined when the two agree.
 */
export function sigv4Mismatch(url: string | undefined, auth: AuthMode): string | undefined {
  if (url === undefined || auth !== "sigv4" || isAwsUrl(url)) return undefined;
  return `PROMETHEUS_URL=${redactCredentials(url)} is not an AMP workspace URL, yet PROMETHEUS_AUTH is sigv4 (the default), so every call is signed for AMP with AWS credentials. For a plain Prometheus set PROMETHEUS_AUTH=none.`;
}

/** A workspace a deployment names: its id, and its region when the entry carries one. */
export interface WorkspaceRef {
  id: string;
  /** From a URL's host or an ARN; undefined for a bare id (the stack's region). */
  region: string | undefined;
  /** An ARN's partition (`aws`, `aws-cn`, …); undefined for ids and URLs. */
  partition?: string | undefined;
}

/**
 * One ALLOWED_WORKSPACES entry: a workspace id (`ws-…`, in the stack's region), a workspace URL
 * (`https://aps-workspaces.<region>.amazonaws.com/workspaces/ws-…/`) or a workspace ARN
 * (`arn:<partition>:aps:<region>:<account>:workspace/ws-…`), the last two carrying their region.
 * Undefined when the entry is none of these.
 */
export function parseWorkspaceEntry(entry: string): WorkspaceRef | undefined {
  if (WORKSPACE_ID.test(entry)) return { id: entry, region: undefined };
  const arn = WORKSPACE_ARN.exec(entry);
  if (arn) return { id: arn[4] as string, region: arn[2], partition: arn[1] };
  if (!/^https?:\/\//i.test(entry)) return undefined;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  const region = AMP_HOST.exec(url.hostname)?.[1];
  const id = URL_PATH_WORKSPACE.exec(url.pathname)?.[1];
  return region === undefined || id === undefined ? undefined : { id, region };
}

/**
 * The regions the configured workspaces live in, in order and without repeats: PROMETHEUS_URL's (from
 * its host, when it is AMP's), then those of ALLOWED_WORKSPACES URLs and ARNs. Bare ids add none.
 */
export function configuredRegions(
  prometheusUrl: string | undefined,
  allowedWorkspaces: readonly string[] | undefined,
): string[] {
  const regions = [
    ampRegionOfUrl(prometheusUrl),
    ...(allowedWorkspaces ?? []).map((entry) => parseWorkspaceEntry(entry)?.region),
  ];
  return [...new Set(regions.filter((region): region is string => region !== undefined))];
}

export interface AccessSettings {
  /** `PROMETHEUS_URL`: when it names an AMP workspace, that workspace is the one the function may read. */
  prometheusUrl: string | undefined;
  /**
   * `ALLOWED_WORKSPACES`: more workspaces the function may read (it alone limits when the URL names
   * none), each an id, a workspace URL or a workspace ARN (see parseWorkspaceEntry).
   */
  allowedWorkspaces?: readonly string[] | undefined;
}

/** Where a workspace the deployment names lives. */
interface Placement {
  /** Named by a bare id (or a URL whose host says no region): any region, the stack's by default. */
  anyRegion: boolean;
  /** The regions URLs and ARNs name for it, first named first. */
  regions: string[];
  /** The region a call naming no region uses; undefined: the stack's. */
  home: string | undefined;
}

/**
 * Which workspaces a deployment may read. A `PROMETHEUS_URL` naming a workspace pins the function to
 * it, plus any `ALLOWED_WORKSPACES`; an allow-list alone limits it to the list. With neither (no URL,
 * or a plain Prometheus URL), any workspace the execution role can read is reachable.
 *
 * A workspace named by a URL (PROMETHEUS_URL's host, or an ALLOWED_WORKSPACES URL) or an ARN lives in
 * that region: calls naming it and no region use it, and a call naming another region is refused. One
 * named by a bare id is in the stack's region by default, and any region may be named for it (as before).
 */
export class WorkspaceAccess {
  /** The workspace `PROMETHEUS_URL` names, if any. */
  readonly configuredId: string | undefined;
  /** The region of PROMETHEUS_URL, from its host when it is AMP's (`aps-workspaces.<region>…`). */
  readonly configuredRegion: string | undefined;
  /** The workspaces that may be read, configured one first; undefined when any may. */
  readonly allowed: readonly string[] | undefined;
  private readonly allowedSet: ReadonlySet<string> | undefined;
  private readonly placements = new Map<string, Placement>();

  constructor(settings: AccessSettings) {
    this.configuredId = workspaceIdFromUrl(settings.prometheusUrl);
    this.configuredRegion = ampRegionOfUrl(settings.prometheusUrl);
    const refs: WorkspaceRef[] = [
      ...(this.configuredId === undefined ? [] : [{ id: this.configuredId, region: this.configuredRegion }]),
      // An entry config did not check (a test's settings) is taken as an id, as before.
      ...(settings.allowedWorkspaces ?? []).map(
        (entry) => parseWorkspaceEntry(entry) ?? { id: entry, region: undefined },
      ),
    ];
    for (const { id, region } of refs) {
      const placement = this.placements.get(id) ?? { anyRegion: false, regions: [], home: region };
      if (region === undefined) placement.anyRegion = true;
      else if (!placement.regions.includes(region)) placement.regions.push(region);
      this.placements.set(id, placement);
    }
    this.allowedSet = refs.length === 0 ? undefined : new Set(refs.map((ref) => ref.id));
    this.allowed = this.allowedSet === undefined ? undefined : [...this.allowedSet];
  }

  /** True when the deployment limits which workspaces may be read. */
  get limited(): boolean {
    return this.allowedSet !== undefined;
  }

  isAllowed(workspaceId: string): boolean {
    return this.allowedSet === undefined || this.allowedSet.has(workspaceId);
  }

  /** Refuses a workspace the deployment may not read, naming those it may; nothing is sent for it. */
  check(workspaceId: string): void {
    if (this.isAllowed(workspaceId)) return;
    const omit =
      this.configuredId === undefined ? "" : ` Omit workspace_id to use the configured ${this.configuredId}.`;
    throw new ToolError(
      `Workspace ${workspaceId} is not one this deployment may read: it is limited to ${this.list()}.${omit} To read others, the deployer must add them to ALLOWED_WORKSPACES (the allowedWorkspaces parameter).`,
      "not_allowed",
    );
  }

  /**
   * The region of a workspace the configuration names by URL or ARN (the first such, PROMETHEUS_URL's
   * first): where a call naming it and no region goes. Undefined for one named by a bare id first, or
   * not named at all: the stack's region.
   */
  homeRegion(workspaceId: string): string | undefined {
    return this.placements.get(workspaceId)?.home;
  }

  /**
   * Refuses `region` for a workspace the configuration places elsewhere (by URL or ARN only): it lives
   * in its region, and asking another would only find nothing. A bare id allows any region.
   */
  checkRegion(workspaceId: string, region: string): void {
    const placement = this.placements.get(workspaceId);
    if (placement === undefined || placement.anyRegion || placement.regions.includes(region)) return;
    const where = placement.regions.join(" or ");
    throw new ToolError(
      `Workspace ${workspaceId} is in ${where} (this deployment's configuration names it by URL or ARN), not in ${region}. Omit region to use ${placement.regions[0]}.`,
      "invalid_arguments",
    );
  }

  /** The allowed workspaces for a message: `ws-a` or `ws-a, ws-b`. */
  list(): string {
    return (this.allowed ?? []).join(", ");
  }
}
