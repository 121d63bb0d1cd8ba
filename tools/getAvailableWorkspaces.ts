import * as z from "zod";
import type { WorkspaceAccess } from "../src/prometheus/access.js";
import { AmpNotFoundError } from "../src/prometheus/ampErrors.js";
import type { AmpCallOptions, WorkspaceSummary } from "../src/prometheus/controlPlane.js";
import { resolveRegion } from "../src/prometheus/workspaces.js";
import { readOnly, usableProfile } from "./common.js";
import { profile, region } from "./params.js";
import { defineTool, type ToolCall } from "./types.js";

const CONFIGURED_NOTE = "(Detected from URL - will be used automatically)";

const workspaceEntry = z.object({
  workspace_id: z.string(),
  alias: z.string().describe('"No alias" when the workspace has none'),
  status: z.string().describe("ACTIVE, CREATING, UPDATING, DELETING, CREATION_FAILED"),
  prometheus_url: z.string().optional().describe("Only for ACTIVE workspaces"),
  region: z.string(),
  is_configured: z.boolean().describe("True for the workspace named by the configured Prometheus URL"),
  note: z.string().optional(),
  allowed: z
    .boolean()
    .describe("True when this deployment may read the workspace (false: the query tools refuse it)"),
});

type WorkspaceEntry = z.output<typeof workspaceEntry>;

export const GetAvailableWorkspaces = defineTool({
  name: "GetAvailableWorkspaces",
  description:
    "List the Amazon Managed Prometheus workspaces in a region (id, alias, status, URL), say which one is configured " +
    "and which ones this deployment may read (`allowed`). " +
    "Use it when no workspace is configured or you need a workspace_id for the query tools.",
  inputSchema: z.object({ region, profile }),
  outputSchema: z.object({
    workspaces: z.array(workspaceEntry),
    count: z.number().describe("Number of workspaces listed"),
    region: z.string(),
    requires_user_selection: z.boolean(),
    configured_workspace_id: z.string().nullable(),
    message: z.string(),
  }),
  annotations: readOnly("List AMP workspaces"),
  async run(args, call) {
    const awsRegion = resolveRegion(args.region, call.settings);
    const options: AmpCallOptions = { region: awsRegion, profile: usableProfile(args.profile, call) };
    const access = call.upstream.workspaces.access;
    const configuredId = access.configuredId;
    const summaries = await call.upstream.controlPlane.listWorkspaces(options, call.context);
    const entries = await Promise.all(summaries.map((summary) => toEntry(summary, access, options, call)));
    // Stable sort: the configured workspace first, the others in AMP's order.
    entries.sort((a, b) => Number(b.is_configured) - Number(a.is_configured));
    const usable = entries.filter((entry) => entry.allowed).length;
    return {
      workspaces: entries,
      count: entries.length,
      region: awsRegion,
      requires_user_selection: configuredId === undefined && usable > 1,
      configured_workspace_id: configuredId ?? null,
      message: message(access, call.settings.prometheusUrl !== undefined, entries.length, awsRegion),
    };
  },
});

async function toEntry(
  summary: WorkspaceSummary,
  access: WorkspaceAccess,
  options: AmpCallOptions,
  call: ToolCall,
): Promise<WorkspaceEntry> {
  const isConfigured = summary.workspaceId === access.configuredId;
  const url =
    summary.status === "ACTIVE" ? await activeEndpoint(summary.workspaceId, options, call) : undefined;
  // Key order is part of the interface: it matches the Python server's output; `allowed` is ours, last.
  return {
    workspace_id: summary.workspaceId,
    alias: summary.alias ?? "No alias",
    status: summary.status,
    ...(url !== undefined ? { prometheus_url: url } : {}),
    region: options.region,
    is_configured: isConfigured,
    ...(isConfigured ? { note: CONFIGURED_NOTE } : {}),
    allowed: access.isAllowed(summary.workspaceId),
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
