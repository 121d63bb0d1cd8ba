/**
 * The tools' interface clients of the Python Lambda depend on: names, parameters, required sets, in
 * tools/list order. Our additions, the optional `limit` and `order` (README, "Large results"), come last.
 */
export const TOOL_INTERFACE: Record<string, { required: string[]; properties: string[] }> = {
  ExecuteQuery: {
    required: ["query"],
    properties: ["workspace_id", "query", "time", "region", "profile", "limit", "order"],
  },
  ExecuteRangeQuery: {
    required: ["query", "start", "end", "step"],
    properties: ["workspace_id", "query", "start", "end", "step", "region", "profile", "limit", "order"],
  },
  ListMetrics: { required: [], properties: ["workspace_id", "region", "profile", "limit"] },
  GetServerInfo: { required: [], properties: ["workspace_id", "region", "profile"] },
  GetAvailableWorkspaces: { required: [], properties: ["region", "profile"] },
};
