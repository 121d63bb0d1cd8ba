import type { AnswerSink } from "../src/prometheus/dataPlane.js";
import type { QueryParams } from "../src/prometheus/queryString.js";
import { type EntryList, ListCollector, type ListSpec } from "../src/results/entryList.js";
import { resolveTime } from "./relativeTime.js";
import { type ToolCall, ToolError } from "./types.js";

const PROFILE_NOT_SUPPORTED =
  "The profile parameter is not supported in AWS Lambda: the function's execution role provides the AWS credentials. Call the tool again without profile.";

/** The profile to use, or undefined; refuses a profile where no credentials file exists (a deployed Lambda). */
export function usableProfile(profile: string | null | undefined, call: ToolCall): string | undefined {
  if (profile === null || profile === undefined) return undefined;
  if (!call.settings.profileSupported) throw new ToolError(PROFILE_NOT_SUPPORTED, "invalid_arguments");
  return profile;
}

/** The call's one reading of the clock, in whole epoch milliseconds. */
export function readClock(call: ToolCall): number {
  return Math.floor((call.clock ?? Date.now)());
}

/** Where a data-plane tool sends its call: the arguments every such tool shares. */
export interface WorkspaceArgs {
  workspace_id?: string | null | undefined;
  region?: string | null | undefined;
  profile?: string | null | undefined;
}

/** One Prometheus HTTP API call: a path under `/api/v1`, its parameters, those it can do without. */
export interface ApiRequest {
  path: string;
  params: QueryParams;
  optionalParams?: readonly string[];
}

/**
 * Resolves the workspace the arguments name (or the configured URL), GETs one Prometheus API path from
 * it and streams the answer into a sink from `makeSink`.
 */
export async function getFromWorkspace<T>(
  args: WorkspaceArgs,
  call: ToolCall,
  request: ApiRequest,
  makeSink: () => AnswerSink<T>,
): Promise<T> {
  const profile = usableProfile(args.profile, call);
  const { upstream, context } = call;
  const target = await upstream.workspaces.resolve(
    { workspaceId: args.workspace_id, region: args.region, profile },
    context,
  );
  const { path, params, optionalParams } = request;
  const dataPlaneCall = {
    region: target.region,
    profile,
    context,
    optionalParams,
    basicAuth: target.basicAuth,
    auth: target.auth,
  };
  return upstream.dataPlane.get(target.apiUrl, path, params, dataPlaneCall, makeSink);
}

/** The optional time bounds of a lookup, `now` and `now-<duration>` resolved against one clock reading. */
export function lookupRange(
  args: { start?: string | null | undefined; end?: string | null | undefined },
  call: ToolCall,
): { start?: string | undefined; end?: string | undefined } {
  if (args.start == null && args.end == null) return {};
  const now = readClock(call);
  return {
    start: args.start == null ? undefined : resolveTime("start", args.start, now),
    end: args.end == null ? undefined : resolveTime("end", args.end, now),
  };
}

/**
 * The `limit` to send upstream for a caller's `limit`: one more, so that receiving that many says there
 * are more. Servers before Prometheus 2.49 ignore it, and the list is cut here either way.
 */
export function upstreamLimit(limit: number | undefined): number | undefined {
  return limit === undefined ? undefined : limit + 1;
}

/** A list answer read by a sink that gives undefined for a payload not of its shape. */
export function expectList<T>(list: T | undefined, what: string, who = "Prometheus"): T {
  if (list === undefined)
    throw new ToolError(`${who} answered with an unexpected ${what} payload.`, "upstream_failed");
  return list;
}

/** What a lookup of names, values or series takes besides the workspace. */
export interface LookupArgs extends WorkspaceArgs {
  match?: readonly string[] | undefined;
  start?: string | null | undefined;
  end?: string | null | undefined;
  limit?: number | null | undefined;
}

/**
 * GETs a lookup (`/labels`, `/label/<name>/values`, `/series`) with `match[]`, the time bounds and
 * `limit` (see upstreamLimit), and collects its list as `spec` says (a spec per attempt: a retry reads
 * from the start); `what` names the list in the error of an answer of another shape.
 */
export async function lookUp<T>(
  args: LookupArgs,
  call: ToolCall,
  path: string,
  spec: () => ListSpec<T>,
  what: string,
): Promise<EntryList<T>> {
  const limit = args.limit ?? undefined;
  const askedUpstream = upstreamLimit(limit);
  const params = {
    "match[]": args.match,
    ...lookupRange(args, call),
    limit: askedUpstream?.toString(),
  };
  const list = await getFromWorkspace(
    args,
    call,
    { path, params, optionalParams: ["limit"] },
    () => new ListCollector(spec(), { budget: call.budget, limit, askedUpstream }),
  );
  return expectList(list, what);
}
