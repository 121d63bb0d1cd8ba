/** A failure whose message is meant for the caller: it names what to do next, never a secret or a stack. */
export class ToolError extends Error {
  override name = "ToolError";
}
