/** The tools' interface clients of the Python Lambda depend on: names, parameters, required sets, in tools/list order. */
export const TOOL_INTERFACE: Record<string, { required: string[]; properties: string[] }> = {
  ExecuteQuery: { required: ["query"], properties: ["workspace_id", "query", "time", "region", "profile"] },
  ExecuteRangeQuery: {
    required: ["query", "start", "end", "step"],
    properties: ["workspace_id", "query", "start", "end", "step", "region", "profile"],
  },
  ListMetrics: { required: [], properties: ["workspace_id", "region", "profile"] },
  GetServerInfo: { required: [], properties: ["workspace_id", "region", "profile"] },
  GetAvailableWorkspaces: { required: [], properties: ["region", "profile"] },
};
