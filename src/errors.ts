/** A failure whose message is meant for the caller: it names what to do next, never a secret or a stack. */
export class ToolError extends Error {
  override name = "ToolError";
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

/** Validation issues as one readable line: `path: message; path: message`. */
export function describeIssues(issues: readonly Issue[]): string {
  return issues
    .map((issue) =>
      issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message,
    )
    .join("; ");
}
