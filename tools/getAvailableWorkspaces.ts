import * as z from "zod";
import { readOnly } from "./annotations.js";
import { getAvailableWorkspacesArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { defineTool } from "./types.js";
import { backendEntry, workspaceEntry } from "./workspaceEntries.js";

export const GetAvailableWorkspaces = defineTool({
  name: "GetAvailableWorkspaces",
  description:
    "List the Amazon Managed Prometheus workspaces in a region (id, alias, status, URL), say which one is configured " +
    "and which ones this deployment may read (`allowed`). " +
    "Use it when no workspace is configured or you need a workspace_id for the query tools.",
  inputSchema: getAvailableWorkspacesArguments,
  outputSchema: () =>
    z.object({
      workspaces: z.array(workspaceEntry),
      count: z.number().describe("Number of workspaces listed"),
      region: z.string(),
      requires_user_selection: z.boolean(),
      configured_workspace_id: z
        .string()
        .nullable()
        .describe("The workspace (or, with BACKENDS, the default backend) a call without workspace_id uses"),
      message: z.string(),
      backends: z.array(backendEntry).optional().describe("With BACKENDS: the named servers, in their order"),
    }),
  backendsDescription:
    "List the backends this server queries (name, kind, auth, default, whether you may use them) and, where AMP is in play, the AMP workspaces of a region. " +
    "Use it to choose the workspace_id (a backend's name, or ws-…) for the query tools.",
  annotations: readOnly("List AMP workspaces"),
  run: lazyRun(() => import("./run/getAvailableWorkspaces.js")),
});
