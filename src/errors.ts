/**
 * What kind of failure a tool error is, for the request's log line (the message is for the caller):
 * the caller's arguments, Prometheus or AMP refusing the request, an upstream that cannot be reached or
 * failed, a deadline, a permission, this deployment's own limits, a cancellation.
 */
export const TOOL_ERROR_KINDS = [
  "invalid_arguments",
  "rejected",
  "unreachable",
  "upstream_failed",
  "too_large",
  "timeout",
  "denied",
  "not_allowed",
  "no_credentials",
  "misconfigured",
  "cancelled",
] as const;

export type ToolErrorKind = (typeof TOOL_ERROR_KINDS)[number];

/** A failure whose message is meant for the caller: it names what to do next, never a secret or a stack. */
export class ToolError extends Error {
  override name = "ToolError";

  constructor(
    message: string,
    readonly kind: ToolErrorKind,
  ) {
    super(message);
  }
}

/** The first line of a message from elsewhere (an SDK error, a credential provider): never a stack. */
export function firstLine(text: string): string {
  return text.split("\n")[0]?.trim() ?? "";
}

/** A validation issue as zod reports it. */
interface Issue {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * Validation issues as one readable line: `path: message; path: message`, or the message alone when it
 * names its argument already (`end is required: …`).
 */
export function describeIssues(issues: readonly Issue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path === "" || issue.message.startsWith(`${path} `)
        ? issue.message
        : `${path}: ${issue.message}`;
    })
    .join("; ");
}
