import type { AmpClient } from "@aws-sdk/client-amp";
import { ampError } from "./ampErrors.js";
import { credentialsFor } from "./credentials.js";
import { attemptSignal, timeLeft } from "./deadline.js";

export interface ControlPlaneOptions {
  profile?: string | undefined;
  /** Override of the AMP endpoint (AMP_ENDPOINT): tests and local use. */
  endpoint?: string | undefined;
  /** Epoch milliseconds by which the call must have answered. */
  deadlineAt: number;
  signal?: AbortSignal | undefined;
}

export interface WorkspaceSummary {
  workspaceId: string;
  alias: string | undefined;
  status: string;
}

export interface WorkspaceDescription extends WorkspaceSummary {
  prometheusEndpoint: string | undefined;
}

/** Cap of one control-plane call, further bounded by the deadline. */
const CALL_TIMEOUT_MS = 15_000;
const PAGE_SIZE = 100;

type AmpModule = typeof import("@aws-sdk/client-amp");
interface Amp {
  client: AmpClient;
  sdk: AmpModule;
}
const clients = new Map<string, Promise<Amp>>();

/** The SDK is loaded on first use, not at cold start; one client per (region, profile, endpoint). */
function clientFor(region: string, options: ControlPlaneOptions): Promise<Amp> {
  const key = [region, options.profile ?? "", options.endpoint ?? ""].join("\u0000");
  let amp = clients.get(key);
  if (!amp) {
    amp = import("@aws-sdk/client-amp").then((sdk) => ({
      sdk,
      client: new sdk.AmpClient({
        region,
        credentials: credentialsFor(options.profile),
        maxAttempts: 3,
        ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      }),
    }));
    amp.catch(() => clients.delete(key));
    clients.set(key, amp);
  }
  return amp;
}

async function send<T>(
  operation: "ListWorkspaces" | "DescribeWorkspace",
  region: string,
  options: ControlPlaneOptions,
  call: (client: AmpClient, sdk: AmpModule, abortSignal: AbortSignal) => Promise<T>,
  workspaceId?: string,
): Promise<T> {
  const timeoutMs = Math.min(CALL_TIMEOUT_MS, timeLeft(options.deadlineAt));
  const context = { operation, region, ...(workspaceId ? { workspaceId } : {}) };
  if (timeoutMs <= 0) throw ampError(undefined, { ...context, timedOutAfterMs: 0 });
  const attempt = attemptSignal(timeoutMs, options.signal);
  try {
    const { client, sdk } = await clientFor(region, options);
    return await call(client, sdk, attempt.signal);
  } catch (error) {
    if (attempt.timedOut()) throw ampError(error, { ...context, timedOutAfterMs: timeoutMs });
    if (options.signal?.aborted) throw ampError(error, { ...context, cancelled: true });
    throw ampError(error, context);
  } finally {
    attempt.dispose();
  }
}

/** All workspaces in the region, following `nextToken` through every page. */
export async function listWorkspaces(
  region: string,
  options: ControlPlaneOptions,
): Promise<WorkspaceSummary[]> {
  return send("ListWorkspaces", region, options, async (client, sdk, abortSignal) => {
    const workspaces: WorkspaceSummary[] = [];
    let nextToken: string | undefined;
    do {
      const page = await client.send(new sdk.ListWorkspacesCommand({ maxResults: PAGE_SIZE, nextToken }), {
        abortSignal,
      });
      for (const workspace of page.workspaces ?? []) {
        workspaces.push({
          workspaceId: workspace.workspaceId ?? "",
          alias: workspace.alias || undefined,
          status: workspace.status?.statusCode ?? "UNKNOWN",
        });
      }
      nextToken = page.nextToken || undefined;
    } while (nextToken);
    return workspaces;
  });
}

export async function describeWorkspace(
  workspaceId: string,
  region: string,
  options: ControlPlaneOptions,
): Promise<WorkspaceDescription> {
  return send(
    "DescribeWorkspace",
    region,
    options,
    async (client, sdk, abortSignal) => {
      const { workspace } = await client.send(new sdk.DescribeWorkspaceCommand({ workspaceId }), {
        abortSignal,
      });
      return {
        workspaceId: workspace?.workspaceId ?? workspaceId,
        alias: workspace?.alias || undefined,
        status: workspace?.status?.statusCode ?? "UNKNOWN",
        prometheusEndpoint: workspace?.prometheusEndpoint || undefined,
      };
    },
    workspaceId,
  );
}
