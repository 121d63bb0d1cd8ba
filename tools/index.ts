import { ExecuteQuery } from "./executeQuery.js";
import { ExecuteRangeQuery } from "./executeRangeQuery.js";
import { GetAvailableWorkspaces } from "./getAvailableWorkspaces.js";
import { GetServerInfo } from "./getServerInfo.js";
import { ListMetrics } from "./listMetrics.js";
import type { Tool } from "./types.js";

/** Every tool, in the order `tools/list` presents them. */
export const tools: Tool[] = [
  ExecuteQuery,
  ExecuteRangeQuery,
  ListMetrics,
  GetServerInfo,
  GetAvailableWorkspaces,
];

export { ExecuteQuery, ExecuteRangeQuery, GetAvailableWorkspaces, GetServerInfo, ListMetrics };
