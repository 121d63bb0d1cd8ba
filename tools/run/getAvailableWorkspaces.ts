import type * as z from "zod";
import type { WorkspaceAccess } from "../../src/prometheus/access.js";
import { AmpNotFoundError } from "../../src/prometheus/ampErrors.js";
import type { Backend } from "../../src/prometheus/backends.js";
import type { AmpCallOptions, WorkspaceSummary } from "../../src/prometheus/controlPlane.js";
import { withoutCredentials } from "../../src/prometheus/urls.js";
import { resolveRegion } from "../../src/prometheus/workspaces.js";
import type { getAvailableWorkspacesArguments } from "../arguments.js";
import { usableProfile } from "../common.js";
import { type ToolCall, ToolError } from "../types.js";
import type { BackendEntry, WorkspaceEntry } from "../workspaceEntries.js";

const CONFIGURED_NOTE = "(Detected from URL - will be used automatically)";

/** GetAvailableWorkspaces's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof getAvailableWorkspacesArguments>, call: ToolCall) {
  if (call.upstream.workspaces.backends.length > 0) return listWithBackends(args, call);
  const awsRegion = resolveRegion(args.region, call.settings);
  const options: AmpCallOptions = { region: awsRegion, profile: usableProfile(args.profile, call) };
  const access = call.upstream.workspaces.access;
  const configuredId = access.configuredId;
  const summaries = await call.upstream.controlPlane.listWorkspaces(options, call.context);
  const entries = await Promise.all(summaries.map((summary) => toEntry(summary, options, call)));
  // Stable sort: the configured workspace first, the others in AMP's order.
  entries.sort((a, b) => Number(b.is_configured) - Number(a.is_configured));
  const usable = entries.filter((entry) => entry.allowed).length;
  const said = message(access, call.settings.prometheusUrl !== undefined, entries.length, awsRegion);
  return listing(entries, awsRegion, configuredId, usable, said);
}

/**
 * One workspace of the listing, for this caller: `allowed` by the rule a query naming it meets (the
 * rules of a backend that names it, else the deployment's allowed workspaces); the URL of a workspace
 * whose backend is not open to the caller is neither shown nor looked up.
 */
async function toEntry(
  summary: WorkspaceSummary,
  options: AmpCallOptions,
  call: ToolCall,
): Promise<WorkspaceEntry> {
  const { workspaces } = call.upstream;
  const isConfigured = summary.workspaceId === workspaces.access.configuredId;
  const backend = workspaces.workspaceBackend(summary.workspaceId, call.context);
  const shown = backend === undefined || workspaces.mayUse(backend, call.context);
  const url =
    summary.status === "ACTIVE" && shown
      ? await activeEndpoint(summary.workspaceId, options, call)
      : undefined;
  // Key order is part of the interface: it matches the Python server's output; `allowed` is ours, last.
  return {
    workspace_id: summary.workspaceId,
    alias: summary.alias ?? "No alias",
    status: summary.status,
    ...(url !== undefined ? { prometheus_url: url } : {}),
    region: options.region,
    is_configured: isConfigured,
    ...(isConfigured ? { note: CONFIGURED_NOTE } : {}),
    allowed: workspaces.mayRead(summary.workspaceId, options.region, call.context),
  };
}

/** The endpoint via the shared cache; a workspace deleted since the listing simply gets no URL. */
async function activeEndpoint(
  workspaceId: string,
  options: AmpCallOptions,
  call: ToolCall,
): Promise<string | undefined> {
  try {
    return await call.upstream.workspaces.endpoint(workspaceId, options, call.context);
  } catch (error) {
    if (error instanceof AmpNotFoundError) return undefined;
    throw error;
  }
}

function message(access: WorkspaceAccess, urlConfigured: boolean, count: number, awsRegion: string): string {
  const configuredId = access.configuredId;
  if (access.limited) return limitedMessage(access, urlConfigured);
  if (configuredId !== undefined) {
    return `A workspace ID (${configuredId}) was detected in the URL and will be used automatically. You can override it by explicitly providing a workspace_id parameter.`;
  }
  if (count === 0) return `No workspaces found in ${awsRegion}.`;
  if (count > 1) return "Please choose a workspace ID to use with your queries.";
  return "Only one workspace is available. You can use it by specifying its workspace_id in your queries.";
}

/** Where the deployment limits its workspaces: which may be used, and no invitation to use others. */
function limitedMessage(access: WorkspaceAccess, urlConfigured: boolean): string {
  const allowed = access.allowed ?? [];
  const configuredId = access.configuredId;
  const which =
    allowed.length === 1
      ? `This deployment may read only workspace ${allowed[0]}.`
      : `This deployment may read only these workspaces: ${allowed.join(", ")}.`;
  let use: string;
  if (configuredId !== undefined) {
    use =
      allowed.length === 1
        ? ` It was detected in the URL and is used automatically.`
        : ` ${configuredId} was detected in the URL and is used automatically; pass another of them as workspace_id to query it.`;
  } else if (urlConfigured) {
    use =
      " Pass one of them as workspace_id; without workspace_id, queries go to the configured Prometheus URL.";
  } else {
    use = " Pass one of them as workspace_id.";
  }
  return `${which}${use} Other workspaces are refused.`;
}

/**
 * With BACKENDS: every backend (none is asked anything), and where AMP is in play the region's
 * workspaces too; a failed workspace listing is said in the message, the backends are listed anyway.
 */
async function listWithBackends(
  args: { region?: string | null | undefined; profile?: string | null | undefined },
  call: ToolCall,
) {
  const workspaces = call.upstream.workspaces;
  const backends = workspaces.backends.map((backend) => backendEntryOf(backend, call));
  const awsRegion = resolveRegion(args.region, call.settings);
  let entries: WorkspaceEntry[] = [];
  let unlisted = "";
  if (!call.settings.backendsOnly) {
    const options: AmpCallOptions = { region: awsRegion, profile: usableProfile(args.profile, call) };
    try {
      const summaries = await call.upstream.controlPlane.listWorkspaces(options, call.context);
      entries = await Promise.all(summaries.map((summary) => toEntry(summary, options, call)));
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      unlisted = ` The AMP workspaces of ${awsRegion} could not be listed: ${error.message}`;
    }
  }
  const defaultName = workspaces.defaultBackend?.name;
  const usable =
    backends.filter((entry) => entry.allowed).length + entries.filter((entry) => entry.allowed).length;
  const names = backends.map((entry) => `${entry.name}${entry.is_default ? " (default)" : ""}`).join(", ");
  const choose =
    defaultName === undefined
      ? "Pass a backend's name as workspace_id."
      : `Calls without workspace_id go to ${defaultName}; pass another backend's name as workspace_id to query it.`;
  const amp = entries.length > 0 ? " AMP workspaces are passed by their ws-… id." : "";
  const said = `Backends: ${names}. ${choose}${amp}${unlisted}`;
  return { ...listing(entries, awsRegion, defaultName, usable, said), backends };
}

/**
 * The answer's fields in the Python server's order: a choice is required when nothing is used by
 * default (`chosen`) and more than one entry may be read.
 */
function listing(
  entries: WorkspaceEntry[],
  region: string,
  chosen: string | undefined,
  usable: number,
  message: string,
) {
  return {
    workspaces: entries,
    count: entries.length,
    region,
    requires_user_selection: chosen === undefined && usable > 1,
    configured_workspace_id: chosen ?? null,
    message,
  };
}

/** A backend for this caller: where one not open to it is (its URL) is not shown. */
function backendEntryOf(backend: Backend, call: ToolCall): BackendEntry {
  const allowed = call.upstream.workspaces.mayUse(backend, call.context);
  return {
    name: backend.name,
    kind: backend.kind,
    auth_mode: backend.auth,
    ...(allowed ? { prometheus_url: withoutCredentials(backend.url) } : {}),
    is_default: backend.isDefault,
    allowed,
    ...(backend.description === undefined ? {} : { description: backend.description }),
  };
}
