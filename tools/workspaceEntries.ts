import * as z from "zod";
import { BACKEND_KINDS } from "../src/prometheus/backends.js";

/** What GetAvailableWorkspaces lists: its output schema's entries, and the types its body builds. */
/** An AMP workspace. */
export const workspaceEntry = z.object({
  workspace_id: z.string(),
  alias: z.string().describe('"No alias" when the workspace has none'),
  status: z.string().describe("ACTIVE, CREATING, UPDATING, DELETING, CREATION_FAILED"),
  prometheus_url: z
    .string()
    .optional()
    .describe("Only for ACTIVE workspaces, and not for one a backend names that is not open to you"),
  region: z.string(),
  is_configured: z.boolean().describe("True for the workspace named by the configured Prometheus URL"),
  note: z.string().optional(),
  allowed: z
    .boolean()
    .describe(
      "True when you may read the workspace here (false: the query tools refuse it; one a backend names follows that backend's allowed_tenants)",
    ),
});

export type WorkspaceEntry = z.output<typeof workspaceEntry>;

/** A backend of BACKENDS. */
export const backendEntry = z.object({
  name: z.string().describe("What the tools take as workspace_id"),
  kind: z.enum(BACKEND_KINDS),
  auth_mode: z.enum(["sigv4", "none", "basic", "bearer"]),
  prometheus_url: z
    .string()
    .optional()
    .describe("Its URL ({tenant}: each caller's own); only for a backend open to you"),
  is_default: z.boolean().describe("True for the backend a call without workspace_id uses"),
  allowed: z.boolean().describe("True when you may use it (false: its allowed_tenants exclude yours)"),
  description: z.string().optional(),
});

export type BackendEntry = z.output<typeof backendEntry>;
