/**
 * The tools' interface clients of the Python Lambda depend on: names, parameters, required sets, in
 * tools/list order. Our one addition, the optional `limit` (README, "Large results"), comes last.
 */
export const TOOL_INTERFACE: Record<string, { required: string[]; properties: string[] }> = {
  ExecuteQuery: {
    required: ["query"],
    properties: ["workspace_id", "query", "time", "region", "profile", "limit"],
  },
  ExecuteRangeQuery: {
    required: ["query", "start", "end", "step"],
    properties: ["workspace_id", "query", "start", "end", "step", "region", "profile", "limit"],
  },
  ListMetrics: { required: [], properties: ["workspace_id", "region", "profile", "limit"] },
  GetServerInfo: { required: [], properties: ["workspace_id", "region", "profile"] },
  GetAvailableWorkspaces: { required: [], properties: ["region", "profile"] },
};
