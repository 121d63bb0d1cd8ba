import type { Context } from "aws-lambda";

/** A request still running when the Lambda has this little time left is answered `-32001`. */
const DEADLINE_MARGIN_MS = 500;
/** Time allowed where no Lambda context tells the remaining time (direct calls in tests, scripts). */
const DEFAULT_REMAINING_MS = 30_000;

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
