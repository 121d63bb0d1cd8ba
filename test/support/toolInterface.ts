/**
 * The tools' interface clients depend on: names, parameters, required sets, in tools/list order. The
 * Python Lambda's five come first; our additions to them, the optional `limit`, `order`, `exact`, `summary` and `match`
 * (docs/large-results.md), come last in each.
 */
export const TOOL_INTERFACE: Record<string, { required: string[]; properties: string[] }> = {
  ExecuteQuery: {
    required: ["query"],
    properties: ["workspace_id", "query", "time", "region", "profile", "limit", "order", "exact", "summary"],
  },
  ExecuteRangeQuery: {
    required: ["query", "start", "end", "step"],
    properties: [
      "workspace_id",
      "query",
      "start",
      "end",
      "step",
      "region",
      "profile",
      "limit",
      "order",
      "exact",
      "summary",
    ],
  },
  ListMetrics: { required: [], properties: ["workspace_id", "region", "profile", "limit", "match"] },
  GetServerInfo: { required: [], properties: ["workspace_id", "region", "profile"] },
  GetAvailableWorkspaces: { required: [], properties: ["region", "profile"] },
  // The discovery and alerting tools (TOOLS groups discovery and alerting): ours, after the five.
  ListLabels: {
    required: [],
    properties: ["workspace_id", "match", "start", "end", "limit", "region", "profile"],
  },
  ListLabelValues: {
    required: ["label"],
    properties: ["workspace_id", "label", "match", "start", "end", "limit", "region", "profile"],
  },
  FindSeries: {
    required: ["match"],
    properties: ["workspace_id", "match", "start", "end", "limit", "region", "profile"],
  },
  GetMetricMetadata: { required: [], properties: ["workspace_id", "metric", "limit", "region", "profile"] },
  GetHealthOverview: { required: [], properties: ["workspace_id", "region", "profile"] },
  ListAlerts: { required: [], properties: ["workspace_id", "state", "match", "limit", "region", "profile"] },
  ListRules: {
    required: [],
    properties: ["workspace_id", "type", "health", "name", "group", "limit", "region", "profile"],
  },
  ListSilences: {
    required: [],
    properties: ["workspace_id", "state", "match", "limit", "region", "profile"],
  },
  GetAlertHistory: {
    required: [],
    properties: ["workspace_id", "start", "end", "match", "limit", "region", "profile"],
  },
  // The charts tool (TOOLS group charts): ExecuteRangeQuery's arguments, a title and thresholds.
  PlotRangeQuery: {
    required: ["query", "start", "end", "step"],
    properties: [
      "workspace_id",
      "query",
      "start",
      "end",
      "step",
      "region",
      "profile",
      "title",
      "limit",
      "order",
      "thresholds",
      "exact",
    ],
  },
};

/** The Python server's five tools (TOOLS=core, the default under PYTHON_COMPAT), in its order. */
export const CORE_TOOLS = Object.keys(TOOL_INTERFACE).slice(0, 5);

/** The parameters that choose an AMP workspace and how to reach it. */
export const AMP_PARAMETERS = ["workspace_id", "region", "profile"];

/**
 * The interface with one plain Prometheus (PROMETHEUS_URL not an AMP workspace, PROMETHEUS_AUTH=none,
 * PYTHON_COMPAT off): no AMP parameters, and no GetAvailableWorkspaces unless TOOLS names it.
 */
export const PLAIN_TOOL_INTERFACE: Record<string, { required: string[]; properties: string[] }> =
  Object.fromEntries(
    Object.entries(TOOL_INTERFACE)
      .filter(([name]) => name !== "GetAvailableWorkspaces")
      .map(([name, { required, properties }]) => [
        name,
        { required, properties: properties.filter((property) => !AMP_PARAMETERS.includes(property)) },
      ]),
  );
