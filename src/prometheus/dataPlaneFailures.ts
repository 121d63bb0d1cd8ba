import { abortedByDeadline } from "../context.js";
import { ToolError } from "../errors.js";
import { boundValue } from "../monitoredText.js";
import { isRetryableStatus } from "../util/backoff.js";
import { cutText } from "../util/text.js";
import type { DataPlaneCall, Service } from "./dataPlaneCall.js";
import { withoutCredentials } from "./urls.js";

/**
 * An outcome worth another attempt, with the error to report if no attempt is left and, for the
 * caller's progress, the reason in a few words (`HTTP 503`).
 */
export class Retryable extends Error {
  constructor(
    message: string,
    readonly kind: "unreachable" | "upstream_failed" | "timeout",
    readonly reason: string,
  ) {
    super(message);
  }
}

/** Prometheus refused the request as such: retrying it unchanged cannot help. */
export class Rejected extends ToolError {
  constructor(
    message: string,
    readonly status: number,
    readonly detail: string,
  ) {
    super(message, "rejected");
  }
}

/** Where an attempt stood when it failed. */
interface FailedAttempt {
  url: string;
  where: string;
  call: DataPlaneCall;
  signal: AbortSignal;
  timeoutMs: number;
  startedAt: number;
  /** Whether fetch had returned a response (the failure came while reading it). */
  answered: boolean;
}

/**
 * What an attempt that failed other than by an answer is, logged on DEBUG by its class or code (never
 * the HTTP client's message): a timeout or a network failure (worth another attempt), a cancellation,
 * or a request fetch could not build (sent again, it fails again).
 */
export function failedAttempt(error: unknown, attempt: FailedAttempt): Error {
  const { url, where, call, signal, timeoutMs, startedAt } = attempt;
  const who = call.service ?? "Prometheus";
  const timedOut = abortedByDeadline(signal);
  const unsent = !attempt.answered && unbuildable(error);
  call.context.debug?.("Prometheus attempt failed", {
    url: withoutCredentials(url),
    error: timedOut
      ? "timeout"
      : signal.aborted
        ? "cancelled"
        : unsent
          ? `not built (${failureClass(error)})`
          : networkCause(error),
    ms: Math.round((performance.now() - startedAt) * 100) / 100,
  });
  if (timedOut) {
    return new Retryable(
      `${who} did not answer within ${timeoutMs} ms (${where}).`,
      "timeout",
      `no answer within ${timeoutMs} ms`,
    );
  }
  if (signal.aborted) return cancelled(who, where);
  if (unsent) return notBuilt(who, where, error);
  const cause = networkCause(error);
  return new Retryable(`Could not reach ${who} at ${where}: ${cause}.`, "unreachable", cause);
}

interface PrometheusEnvelope {
  status?: unknown;
  data?: unknown;
  errorType?: unknown;
  error?: unknown;
  message?: unknown;
}

/** What a 403 means, by how requests are signed. */
export type Refusal = (who: Service, detail: string, where: string) => ToolError;

/** Throws the error a failed answer means (a Retryable one for 429 and 5xx). */
export function interpretFailure(
  who: Service,
  status: number,
  body: string,
  where: string,
  refusal: Refusal,
): never {
  const envelope = parseEnvelope(body);
  // An error's words are the upstream's too (a duplicate series' labels, a rule's text): bounded alike.
  const detail = boundValue(errorDetail(envelope, body));
  if (status === 403) throw refusal(who, detail, where);
  if (isRetryableStatus(status))
    throw new Retryable(
      `${who} failed with HTTP ${status} at ${where}${detail ? `: ${detail}` : ""}`,
      "upstream_failed",
      `HTTP ${status}`,
    );
  if (typeof envelope?.errorType === "string") {
    throw new Rejected(`${who} rejected the query (HTTP ${status}) ${detail}`, status, detail);
  }
  // Alertmanager words a request it refuses (a malformed filter) as a bare string: the caller's to fix.
  if (who === "Alertmanager" && status === 400) {
    throw new Rejected(`Alertmanager rejected the request (HTTP 400): ${detail}`, status, detail);
  }
  if (status >= 200 && status < 300) {
    throw new ToolError(
      `${who} answered HTTP ${status} at ${where} without a success status: ${detail || "empty body"}`,
      "upstream_failed",
    );
  }
  throw new Rejected(
    `${who} answered HTTP ${status} at ${where}${detail ? `: ${detail}` : ""}. ${who === "Prometheus" ? "Check the Prometheus URL or workspace." : "Check ALERTMANAGER_URL or the workspace."}`,
    status,
    detail,
  );
}

function parseEnvelope(body: string): PrometheusEnvelope | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null ? (parsed as PrometheusEnvelope) : undefined;
  } catch {
    return undefined;
  }
}

function errorDetail(envelope: PrometheusEnvelope | undefined, body: string): string {
  const bare = jsonString(body);
  if (bare !== undefined) return bare;
  if (envelope && typeof envelope.error === "string") {
    return typeof envelope.errorType === "string"
      ? `${envelope.errorType}: ${envelope.error}`
      : envelope.error;
  }
  if (envelope && typeof envelope.message === "string") return envelope.message;
  if (envelope && typeof (envelope as { Message?: unknown }).Message === "string") {
    return (envelope as { Message: string }).Message;
  }
  const text = body.trim().replace(/\s+/g, " ");
  return cutText(text, 200);
}

/** A body that is one JSON string (how Alertmanager words a 400): the string. */
function jsonString(body: string): string | undefined {
  if (!body.trimStart().startsWith('"')) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "string" ? parsed.trim() : undefined;
  } catch {
    return undefined;
  }
}

export function isRedirect(response: Response): boolean {
  return response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400);
}

/** The redirect as an error naming where it pointed (scheme and host only), never followed. */
export function redirected(who: Service, response: Response, url: string, where: string): ToolError {
  const location = response.headers.get("location");
  let to = "an unnamed location";
  if (location !== null) {
    try {
      const target = new URL(location, url);
      to = `${target.protocol}//${target.host}`;
    } catch {
      to = "an invalid location";
    }
  }
  const status = response.status === 0 ? "a redirect" : `HTTP ${response.status}`;
  return new ToolError(
    `${who} answered with a redirect to ${to} (${status} at ${where}); not followed: requests and their credentials go to the configured Prometheus URL or workspace only. Configure the address it redirects to instead.`,
    "misconfigured",
  );
}

/** Node's and undici's error codes (ECONNREFUSED, UND_ERR_SOCKET…): identifiers, never a request's text. */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
/** An error's class (TypeError, SocketError…). */
const ERROR_NAME = /^[A-Za-z]{1,64}$/;
/** Codes of a request that cannot be made from what it was given (its URL, a header), on any attempt. */
const UNBUILDABLE_CODES = new Set([
  "ERR_INVALID_URL",
  "ERR_INVALID_CHAR",
  "ERR_INVALID_HTTP_TOKEN",
  "ERR_HTTP_INVALID_HEADER_VALUE",
]);
/** undici's words, compared and never passed on, for a port fetch never connects to (6000, 6667…). */
const BAD_PORT = "bad port";

/**
 * Why a request could not be made, in words of our own: a known code described, another code as it
 * is, else the error's class. Never the HTTP client's message: it quotes what it refused (a header's
 * whole value: the bearer token in it), or a URL's user:password@.
 */
function networkCause(error: unknown): string {
  const code = errorCode(error);
  if (code === "ECONNREFUSED") return "connection refused (ECONNREFUSED)";
  if (code === "ENOTFOUND") return "host not found (ENOTFOUND)";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return `connection reset (${code})`;
  if (code !== undefined) return code;
  if (causeOf(error)?.message === BAD_PORT) return "a port fetch does not connect to (bad port)";
  return `a network error (${errorClass(error)})`;
}

/** The error's code, else its class: what a failure is said by when its message cannot be. */
function failureClass(error: unknown): string {
  return errorCode(error) ?? errorClass(error);
}

/** The class of the error's cause, else of the error: `TypeError`, `SocketError`… */
function errorClass(error: unknown): string {
  const named = causeOf(error) ?? error;
  return named instanceof Error && ERROR_NAME.test(named.name) ? named.name : "Error";
}

function causeOf(error: unknown): { code?: unknown; message?: unknown; name?: unknown } | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  return typeof cause === "object" && cause !== null ? cause : undefined;
}

/** The error's code, or its cause's (fetch's TypeError carries the network's in its cause). */
function errorCode(error: unknown): string | undefined {
  for (const candidate of [causeOf(error), error]) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === "string" && ERROR_CODE.test(code)) return code;
  }
  return undefined;
}

/**
 * True when fetch refused to build the request: a header or URL it cannot carry (its TypeError without
 * a network cause, or an invalid-URL or -header code). Sent again, it fails again: no retry.
 */
function unbuildable(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined) return UNBUILDABLE_CODES.has(code);
  return error instanceof TypeError && error.cause === undefined;
}

/** A request fetch refused to build, said by its class or code only (its message quotes the value). */
function notBuilt(who: Service, where: string, error: unknown): ToolError {
  return new ToolError(
    `The request to ${who} (${where}) could not be made: a header or its URL holds what HTTP cannot carry (${failureClass(error)}); nothing was sent. Check the server's URL and the headers configured for it.`,
    "misconfigured",
  );
}

export function cancelled(who: Service, where: string): ToolError {
  return new ToolError(`The request to ${who} (${where}) was cancelled before it answered.`, "cancelled");
}
