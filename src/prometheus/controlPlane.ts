import type { AmpClient } from "@aws-sdk/client-amp";
import { abortedByDeadline, type RequestContext, step } from "../context.js";
import { traced } from "../tracing/trace.js";
import { Memo } from "../util/memoize.js";
import { AmpNotFoundError, ampError } from "./ampErrors.js";
import type { Credentials } from "./credentials.js";
import type { Regions } from "./regions.js";

export interface WorkspaceSummary {
  workspaceId: string;
  alias: string | undefined;
  status: string;
}

interface WorkspaceDescription extends WorkspaceSummary {
  prometheusEndpoint: string | undefined;
}

/** Where a control-plane call goes and as whom. */
export interface AmpCallOptions {
  region: string;
  profile: string | undefined;
}

/** Cap of one control-plane call (all pages of ListWorkspaces included), further bounded by the deadline. */
const CALL_TIMEOUT_MS = 15_000;
const PAGE_SIZE = 100;
/** AMP clients kept per handler, one per (region, profile); the least recently used go first. */
export const MAX_CACHED_CLIENTS = 16;

type AmpModule = typeof import("@aws-sdk/client-amp");
interface Amp {
  client: AmpClient;
  sdk: AmpModule;
}
type Operation = "ListWorkspaces" | "DescribeWorkspace";

/**
 * The AMP control plane (`@aws-sdk/client-amp`): one client per (region, profile), the SDK loaded on
 * first use rather than at cold start. `endpoint` overrides AMP's (AMP_ENDPOINT: tests, local fakes).
 */
export class ControlPlane {
  private readonly clients = new Memo<Promise<Amp>>(MAX_CACHED_CLIENTS);

  /** `regions`, when given, refuses a region outside the function's partition before a client is built. */
  constructor(
    private readonly credentials: Credentials,
    private readonly endpoint: string | undefined,
    private readonly regions?: Regions,
  ) {}

  /** How many AMP clients are kept (at most MAX_CACHED_CLIENTS). */
  get cachedClients(): number {
    return this.clients.size;
  }

  /** All workspaces in the region, following `nextToken` through every page. */
  listWorkspaces(options: AmpCallOptions, context: RequestContext): Promise<WorkspaceSummary[]> {
    return this.send("ListWorkspaces", options, context, undefined, async ({ client, sdk }, abortSignal) => {
      const workspaces: WorkspaceSummary[] = [];
      let nextToken: string | undefined;
      do {
        const page = await client.send(new sdk.ListWorkspacesCommand({ maxResults: PAGE_SIZE, nextToken }), {
          abortSignal,
        });
        reportAttempts(context, page.$metadata);
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

  describeWorkspace(
    workspaceId: string,
    options: AmpCallOptions,
    context: RequestContext,
  ): Promise<WorkspaceDescription> {
    return this.send(
      "DescribeWorkspace",
      options,
      context,
      workspaceId,
      async ({ client, sdk }, abortSignal) => {
        const { workspace, $metadata } = await client.send(
          new sdk.DescribeWorkspaceCommand({ workspaceId }),
          {
            abortSignal,
          },
        );
        reportAttempts(context, $metadata);
        return {
          workspaceId: workspace?.workspaceId ?? workspaceId,
          alias: workspace?.alias || undefined,
          status: workspace?.status?.statusCode ?? "UNKNOWN",
          prometheusEndpoint: workspace?.prometheusEndpoint || undefined,
        };
      },
    );
  }

  private clientFor({ region, profile }: AmpCallOptions): Promise<Amp> {
    this.regions?.check(region);
    return this.clients.get([region, profile], () =>
      import("@aws-sdk/client-amp").then((sdk) => ({
        sdk,
        client: new sdk.AmpClient({
          region,
          credentials: this.credentials.for(profile),
          maxAttempts: 3,
          ...(this.endpoint ? { endpoint: this.endpoint } : {}),
        }),
      })),
    );
  }

  /** One control-plane call: an X-Ray subsegment `AMP <operation>` of its own when the request is traced. */
  private send<T>(
    operation: Operation,
    options: AmpCallOptions,
    context: RequestContext,
    workspaceId: string | undefined,
    call: (amp: Amp, abortSignal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    return traced(
      context.trace,
      `AMP ${operation}`,
      (span) => {
        span?.annotate("region", options.region);
        if (workspaceId) span?.annotate("workspace_id", workspaceId);
        return this.sendUntraced(operation, options, context, workspaceId, call);
      },
      // No such workspace in that region: the caller's error (a workspace id, a region), not a fault.
      (error) => error instanceof AmpNotFoundError,
    );
  }

  private async sendUntraced<T>(
    operation: Operation,
    options: AmpCallOptions,
    context: RequestContext,
    workspaceId: string | undefined,
    call: (amp: Amp, abortSignal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const where = { operation, region: options.region, ...(workspaceId ? { workspaceId } : {}) };
    const { timeoutMs, signal, end } = step(context, CALL_TIMEOUT_MS);
    const startedAt = performance.now();
    try {
      if (timeoutMs <= 0) throw ampError(undefined, { ...where, timedOutAfterMs: 0 });
      return await call(await this.clientFor(options), signal);
    } catch (error) {
      reportAttempts(context, (error as { $metadata?: { attempts?: number } } | undefined)?.$metadata);
      if (abortedByDeadline(signal)) throw ampError(error, { ...where, timedOutAfterMs: timeoutMs });
      if (signal.aborted) throw ampError(error, { ...where, cancelled: true });
      throw ampError(error, where);
    } finally {
      end();
      // The time; the attempts are counted from what the SDK says it made (reportAttempts).
      context.report?.upstreamAttempts(0, performance.now() - startedAt);
    }
  }
}

/** The HTTP attempts one AWS SDK call made, retries included, as its response or error says (else 1). */
function reportAttempts(context: RequestContext, metadata: { attempts?: number } | undefined): void {
  const attempts = metadata?.attempts;
  context.report?.upstreamAttempts(typeof attempts === "number" && attempts > 0 ? attempts : 1, 0);
}
