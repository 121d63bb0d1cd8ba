import { firstLine, ToolError } from "../errors.js";
import { redactCredentials } from "./urls.js";

interface AmpErrorContext {
  operation: "ListWorkspaces" | "DescribeWorkspace";
  region: string;
  workspaceId?: string;
  /** Set when the call was aborted by its own deadline timer. */
  timedOutAfterMs?: number;
  cancelled?: boolean;
}

/** The workspace (or other AMP resource) does not exist in that region. */
export class AmpNotFoundError extends ToolError {
  override name = "AmpNotFoundError";
}

const SIGNATURE_ERRORS = new Set([
  "InvalidSignatureException",
  "SignatureDoesNotMatch",
  "UnrecognizedClientException",
  "InvalidClientTokenId",
  "ExpiredTokenException",
  "IncompleteSignature",
]);

/** Turns an AWS SDK failure into a ToolError that says what went wrong and what to do; never a stack or secret. */
export function ampError(error: unknown, context: AmpErrorContext): ToolError {
  if (error instanceof ToolError) return error;
  const name = error instanceof Error ? error.name : "";
  // An SDK message may quote the endpoint; an AMP_ENDPOINT with user:password@ must not show.
  const message = redactCredentials(error instanceof Error ? firstLine(error.message) : String(error));
  const { operation, region } = context;

  if (context.timedOutAfterMs !== undefined) {
    return new ToolError(
      `Amazon Managed Prometheus (${operation}) did not answer within ${context.timedOutAfterMs} ms.`,
      "timeout",
    );
  }
  if (context.cancelled) {
    return new ToolError(`The ${operation} request was cancelled before AMP answered.`, "cancelled");
  }
  if (name === "ResourceNotFoundException") {
    const what = context.workspaceId ? `Workspace ${context.workspaceId}` : "The resource";
    return new AmpNotFoundError(
      `${what} not found in ${region}. Use GetAvailableWorkspaces to list the workspaces in that region, or pass the right region.`,
      "rejected",
    );
  }
  if (name === "AccessDeniedException" || name === "AccessDenied") {
    return new ToolError(
      `Access denied for ${operation} in ${region}: the Lambda execution role (or local credentials) lacks the aps:${operation} permission. AMP said: ${message}`,
      "denied",
    );
  }
  if (SIGNATURE_ERRORS.has(name)) {
    return new ToolError(
      `AWS rejected the credentials or request signature for ${operation} (${name}): ${message}`,
      "denied",
    );
  }
  if (name === "CredentialsProviderError") {
    return new ToolError(
      `AWS credentials are missing: ${message}. Check the function's execution role or local credentials.`,
      "no_credentials",
    );
  }
  if (name === "ThrottlingException" || name === "ServiceQuotaExceededException") {
    return new ToolError(
      `AMP throttled ${operation} in ${region}; try again shortly. AMP said: ${message}`,
      "upstream_failed",
    );
  }
  if (name === "ValidationException")
    return new ToolError(`AMP rejected ${operation}: ${message}`, "rejected");

  const code = networkCode(error);
  if (code)
    return new ToolError(
      `Could not reach the AMP control plane for ${operation} in ${region}: ${code}.`,
      "unreachable",
    );
  return new ToolError(
    `AMP ${operation} failed in ${region}${name && name !== "Error" ? ` (${name})` : ""}: ${message}`,
    "upstream_failed",
  );
}

function networkCode(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof candidate?.code === "string" && /^E[A-Z]+$/.test(candidate.code)) return candidate.code;
  if (typeof candidate?.cause?.code === "string") return candidate.cause.code;
  return undefined;
}
