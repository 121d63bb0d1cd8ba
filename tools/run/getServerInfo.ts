import type * as z from "zod";
import { resolveRegion } from "../../src/prometheus/workspaces.js";
import type { getServerInfoArguments } from "../arguments.js";
import { readClock, usableProfile } from "../common.js";
import type { ToolCall } from "../types.js";

/** GetServerInfo's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof getServerInfoArguments>, call: ToolCall) {
  const calledAt = readClock(call);
  const chosenProfile = usableProfile(args.profile, call);
  const request = { workspaceId: args.workspace_id, region: args.region, profile: chosenProfile };
  const { workspaces } = call.upstream;
  // Only backends and none chosen: no settings to show but a list, so the error says to name one.
  const target = call.settings.backendsOnly
    ? await workspaces.resolve(request, call.context)
    : await workspaces.find(request, call.context);
  const backends = workspaces.backends;
  return {
    prometheus_url: target?.serverUrl ?? null,
    aws_region: target?.region ?? resolveRegion(args.region, call.settings),
    aws_profile: chosenProfile ?? "default",
    service_name: "aps" as const,
    auth_mode: target?.auth?.mode ?? call.settings.prometheusAuth,
    backend_kind: target?.kind ?? "amp",
    ...(target?.backend === undefined ? {} : { backend: target.backend }),
    ...(backends.length === 0 ? {} : { backends: backends.map((backend) => backend.name) }),
    server_time: new Date(calledAt).toISOString(),
    result_budget_bytes: call.budget.bytes,
    result_budget_tokens: call.budget.tokens,
  };
}
