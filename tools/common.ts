import type { DataPlaneOptions } from "../src/prometheus/dataPlane.js";
import type { Target } from "../src/prometheus/workspaces.js";
import { type ToolAnnotations, type ToolCall, ToolError } from "./types.js";

export const PROFILE_NOT_SUPPORTED =
  "The profile parameter is not supported in AWS Lambda: the function's execution role provides the AWS credentials. Call the tool again without profile.";

/** The profile to use, or undefined; refuses a profile where no credentials file exists (a deployed Lambda). */
export function usableProfile(profile: string | null | undefined, call: ToolCall): string | undefined {
  if (profile === null || profile === undefined) return undefined;
  if (!call.settings.profileSupported) throw new ToolError(PROFILE_NOT_SUPPORTED);
  return profile;
}

export function dataPlaneOptions(
  target: Target,
  profile: string | undefined,
  call: ToolCall,
): DataPlaneOptions {
  return {
    region: target.region,
    auth: call.settings.prometheusAuth,
    profile,
    deadlineAt: call.deadlineAt,
    signal: call.signal,
  };
}

export function readOnly(title: string): ToolAnnotations {
  return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
}
