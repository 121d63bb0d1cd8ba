import type { ToolAnnotations } from "./types.js";

/** A read-only tool's annotations: it changes nothing, and asks an open world (Prometheus). */
export function readOnly(title: string): ToolAnnotations {
  return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
}
