import type * as z from "zod";
import { redactCredentials } from "../../src/prometheus/urls.js";
import { NoAlertmanagerError } from "../../src/prometheus/workspaces.js";
import { ListCollector } from "../../src/results/entryList.js";
import { compareSilences, type SilenceEntry, silenceEntry } from "../../src/results/silences.js";
import type { listSilencesArguments } from "../arguments.js";
import { expectList, getFromWorkspace, usableProfile, type WorkspaceArgs } from "../common.js";
import type { ToolCall } from "../types.js";

/** ListSilences's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof listSilencesArguments>, call: ToolCall) {
  const profileName = usableProfile(args.profile, call);
  const { upstream, context } = call;
  const target = await upstream.workspaces
    .alertmanager({ workspaceId: args.workspace_id, region: args.region, profile: profileName }, context)
    .catch(async (error: unknown) => {
      if (!(error instanceof NoAlertmanagerError)) throw error;
      throw new NoAlertmanagerError(await alertmanagersOf(args, call), error.backend);
    });
  const state = args.state ?? undefined;
  const limit = args.limit ?? undefined;
  const list = await upstream.dataPlane.get(
    target.apiUrl,
    "/silences",
    // Alertmanager's own filter: silences having all these matchers (its own syntax and errors).
    { filter: args.match ?? undefined },
    {
      region: target.region,
      profile: profileName,
      context,
      basicAuth: target.basicAuth,
      auth: target.auth,
      service: "Alertmanager",
    },
    () => {
      const counts = new Map<string, number>();
      return new ListCollector<SilenceEntry>(
        {
          key: "silences",
          noun: "silences",
          format: { bare: true },
          entriesOf: (value) => {
            const entry = silenceEntry(value);
            return entry === undefined ? undefined : [entry];
          },
          accepts: (entry) => state === undefined || entry.state === state,
          compare: compareSilences,
          orderWords: "active first (ending soonest), then pending, then expired",
          tally: (entry) => counts.set(entry.state, (counts.get(entry.state) ?? 0) + 1),
          nextStep: () =>
            `By state: ${[...counts].map(([name, count]) => `${name} ${count}`).join(", ")}. Narrow with state (e.g. active) or match.`,
          emptyHint:
            state === undefined && args.match === undefined
              ? "Alertmanager has no silences (expired ones are dropped after a few days)."
              : undefined,
        },
        { budget: call.budget, limit },
      );
    },
  );
  return expectList(list, "silence list", "Alertmanager");
}

/**
 * The Alertmanagers Prometheus itself sends alerts to (`/api/v1/alertmanagers`), as words for the error
 * of a deployment without ALERTMANAGER_URL; empty when it reports none or cannot be asked.
 */
async function alertmanagersOf(args: WorkspaceArgs, call: ToolCall): Promise<string> {
  try {
    const urls = await getFromWorkspace(args, call, { path: "/alertmanagers", params: {} }, () => ({
      // An object, held whole (a few URLs): nothing under `data` is streamed.
      format: { streamedKey: "" },
      element: () => undefined,
      finish: (data: unknown) => activeUrls(data),
    }));
    return urls.length === 0 ? "" : ` This Prometheus sends its alerts to ${urls.join(", ")}.`;
  } catch {
    return "";
  }
}

/** `data.activeAlertmanagers[].url` without the `/api/v2/alerts` Prometheus posts to (at most 5). */
function activeUrls(data: unknown): string[] {
  const active = (data as { activeAlertmanagers?: unknown } | null)?.activeAlertmanagers;
  if (!Array.isArray(active)) return [];
  return active
    .map((entry) => (entry as { url?: unknown } | null)?.url)
    .filter((url): url is string => typeof url === "string")
    .map((url) => redactCredentials(url).replace(/\/api\/v[12]\/alerts$/, ""))
    .slice(0, 5);
}
