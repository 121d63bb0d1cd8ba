import * as z from "zod";
import { BACKEND_KINDS } from "../src/prometheus/backends.js";
import { readOnly } from "./annotations.js";
import { getServerInfoArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { defineTool } from "./types.js";

export const GetServerInfo = defineTool({
  name: "GetServerInfo",
  description:
    "Show which Prometheus URL, AWS region and profile the other tools would use (for a workspace_id, its resolved URL). " +
    "Use it to check the configuration, the server's clock and the result size limit; it runs no query.",
  plainDescription:
    "Show which Prometheus server the other tools query and how (auth mode). " +
    "Use it to check the configuration, the server's clock and the result size limit; it runs no query.",
  inputSchema: getServerInfoArguments,
  outputSchema: () =>
    z.object({
      prometheus_url: z
        .string()
        .nullable()
        .describe("Prometheus server URL (without /api/v1), or null when none is configured"),
      aws_region: z.string(),
      aws_profile: z.string().describe('AWS profile, "default" when none'),
      service_name: z.literal("aps"),
      auth_mode: z
        .enum(["sigv4", "none", "basic", "bearer"])
        .describe(
          "How Prometheus calls authenticate: sigv4 (AWS SigV4, for AMP), none (a plain Prometheus), basic or bearer (credentials read from a secret)",
        ),
      backend_kind: z
        .enum(BACKEND_KINDS)
        .describe(
          "What answers: amp, prometheus, mimir, cortex, thanos or victoriametrics (as configured, or as the URL says); what it does not serve is a clear tool error",
        ),
      backend: z.string().optional().describe("With BACKENDS: the backend these settings are of"),
      backends: z
        .array(z.string())
        .optional()
        .describe("With BACKENDS: every backend's name, each one a workspace_id value"),
      server_time: z
        .string()
        .describe("The server's clock at this call, ISO 8601 UTC: what now means in time, start and end"),
      result_budget_bytes: z
        .number()
        .int()
        .describe(
          "The most bytes of text one tool result gives (its share of the response, less when a batch shares it; MAX_RESULT_BYTES when set)",
        ),
      result_budget_tokens: z
        .number()
        .int()
        .describe(
          "The model's budget for one tool result, in tokens (MAX_RESULT_TOKENS); larger results are cut",
        ),
    }),
  annotations: readOnly("Show Prometheus connection settings"),
  run: lazyRun(() => import("./run/getServerInfo.js")),
});
