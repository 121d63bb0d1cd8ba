import type { Context } from "aws-lambda";

/**
 * The deadline and all its margins. A request's deadline is the earlier of the Lambda's end and the
 * front door's (API Gateway's integration timeout), less DEADLINE_MARGIN_MS to answer (requestTimeoutMs);
 * stdio has its own, STDIO_REQUEST_TIMEOUT_MS. Within it, each part takes a margin or a cap named here:
 * a tool TOOL_DEADLINE_MARGIN_MS less (to report its own timeout), an expiry refresh at most
 * SESSION_REFRESH_BUDGET_MS, one session store call STORE_CALL_TIMEOUT_MS (a lock wait as much), and a
 * resumed stream waits WRITER_GRACE_MS past its writer's end. src/context.ts carries the deadline
 * (`deadlineAt`, `withMargin`, `step`); this module says how long.
 */

/** A request still running when the Lambda has this little time left is answered `-32001`. */
export const DEADLINE_MARGIN_MS = 500;
/** Time allowed where no Lambda context tells the remaining time (direct calls in tests, scripts). */
const DEFAULT_REMAINING_MS = 30_000;

/** API Gateway's hard integration timeouts (HTTP API; REST API by default): the front door's deadline. */
export const HTTP_API_LIMIT_MS = 30_000;
export const REST_API_LIMIT_MS = 29_000;

/**
 * How long one stdio request may run. Nothing stands between the client and this process (behind API
 * Gateway a request has 29 s), so a slow Prometheus gets its full attempts (30 s each, up to 3).
 */
export const STDIO_REQUEST_TIMEOUT_MS = 120_000;

/** A tool gets this much less time than its request, so a slow Prometheus yields the tool's own timeout error. */
export const TOOL_DEADLINE_MARGIN_MS = 250;

/**
 * The longest an expiry refresh holds its request: it only moves a TTL, so a busy store (a session file's
 * lock another writer holds, a throttled table) delays the answer this much at most and never fails it.
 */
export const SESSION_REFRESH_BUDGET_MS = 1_000;

/**
 * The longest one session store call may take (its attempts included), and never past the request's
 * deadline: a DynamoDB call (sessions, stream events), or a wait for a session file's lock.
 */
export const STORE_CALL_TIMEOUT_MS = 3_000;

/**
 * How long after its invocation's end a write may still land (one store call started just before):
 * past it, a resumed stream without its reply never gets one.
 */
export const WRITER_GRACE_MS = STORE_CALL_TIMEOUT_MS;

/**
 * The one deadline formula: the time a request may take, leaving DEADLINE_MARGIN_MS to answer before
 * the Lambda times out or before the front door stops waiting (`answerBy`, epoch ms), whichever
 * comes first.
 */
export function requestTimeoutMs(lambda: Context | undefined, answerBy: number | undefined): number {
  const remaining = remainingMs(lambda);
  const frontDoor = answerBy === undefined ? remaining : answerBy - Date.now();
  return Math.min(remaining, frontDoor) - DEADLINE_MARGIN_MS;
}

/**
 * Epoch milliseconds at which the invocation ends (the Lambda times out, and its sandbox is stopped):
 * nothing it runs writes anything after it.
 */
export function invocationEndsAt(lambda: Context | undefined): number {
  return Date.now() + remainingMs(lambda);
}

function remainingMs(lambda: Context | undefined): number {
  return typeof lambda?.getRemainingTimeInMillis === "function"
    ? lambda.getRemainingTimeInMillis()
    : DEFAULT_REMAINING_MS;
}
