import { type ToolAnnotations, type ToolCall, ToolError } from "./types.js";

const PROFILE_NOT_SUPPORTED =
  "The profile parameter is not supported in AWS Lambda: the function's execution role provides the AWS credentials. Call the tool again without profile.";

/** The profile to use, or undefined; refuses a profile where no credentials file exists (a deployed Lambda). */
export function usableProfile(profile: string | null | undefined, call: ToolCall): string | undefined {
  if (profile === null || profile === undefined) return undefined;
  if (!call.settings.profileSupported) throw new ToolError(PROFILE_NOT_SUPPORTED);
  return profile;
}

export function readOnly(title: string): ToolAnnotations {
  return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
}

/** Where a data-plane tool sends its call: the arguments every such tool shares. */
export interface WorkspaceArgs {
  workspace_id?: string | null | undefined;
  region?: string | null | undefined;
  profile?: string | null | undefined;
}

/** Resolves the workspace the arguments name (or the configured URL) and GETs one Prometheus API path from it. */
export async function getFromWorkspace(
  args: WorkspaceArgs,
  call: ToolCall,
  path: string,
  params: Record<string, string | undefined>,
): Promise<unknown> {
  const profile = usableProfile(args.profile, call);
  const { upstream, context } = call;
  const target = await upstream.workspaces.resolve(
    { workspaceId: args.workspace_id, region: args.region, profile },
    context,
  );
  return upstream.dataPlane.get(target.apiUrl, path, params, { region: target.region, profile, context });
}
