import type { z } from "zod";

/** What a tool may know about its deployment: no HTTP, no Lambda. */
export interface ToolSettings {
  /** Fixed Prometheus/AMP workspace URL (`PROMETHEUS_URL`), as configured. */
  prometheusUrl: string | undefined;
  /** `sigv4` signs data-plane calls for AMP; `none` talks to a plain Prometheus. */
  prometheusAuth: "sigv4" | "none";
  /** Region used when a call names none (`AWS_REGION`, else us-east-1). */
  defaultRegion: string;
  /** Override of the AMP control-plane endpoint (tests, local use). */
  ampEndpoint: string | undefined;
  /** False in a deployed Lambda, where no credentials file exists: a `profile` argument is refused. */
  profileSupported: boolean;
}

/** One call of one tool. */
export interface ToolCall {
  settings: ToolSettings;
  /** Epoch milliseconds by which the tool must have answered (the caller's deadline minus a margin). */
  deadlineAt: number;
  /** Aborted when the caller cancels the request or its deadline passes. */
  signal: AbortSignal;
  /**
   * State kept per MCP session and stored with it, so it survives cold starts (a throwaway map for
   * requests without a session). Keep it small and JSON-serialisable.
   */
  sessionData: Record<string, unknown>;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool<In extends z.ZodObject = z.ZodObject, Out extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  inputSchema: In;
  outputSchema: Out;
  annotations: ToolAnnotations;
  run(args: z.output<In>, call: ToolCall): Promise<z.output<Out>>;
}

export { ToolError } from "../src/errors.js";

export function defineTool<In extends z.ZodObject, Out extends z.ZodObject>(tool: Tool<In, Out>): Tool {
  return tool as unknown as Tool;
}
