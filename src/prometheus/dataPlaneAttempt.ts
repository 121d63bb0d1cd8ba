// One attempt of a data-plane call (dataPlane.ts): the fetch, with its own timeout under the deadline and no
// redirect followed, the answer streamed into its sink or its failure interpreted; and what a trace tallies.

import { step } from "../context.js";
import { ToolError } from "../errors.js";
import type { Trace } from "../tracing/trace.js";
import { type AnswerSink, MAX_ERROR_BODY_BYTES, readAnswer, readCapped } from "./answerReader.js";
import type { DataPlaneCall, DataPlaneLimits } from "./dataPlaneCall.js";
import {
  failedAttempt,
  interpretFailure,
  isRedirect,
  type Refusal,
  Retryable,
  redirected,
} from "./dataPlaneFailures.js";
import { withoutCredentials } from "./urls.js";

const DEFAULT_ATTEMPT_TIMEOUT_MS = 30_000;

export type Fetch = typeof fetch;

interface Reading<T> extends DataPlaneLimits {
  sink: AnswerSink<T>;
}

/** What a traced call's subsegment records as it goes: the attempts made, the last HTTP status. */
export class Tally {
  private attempts = 0;

  constructor(private readonly span: Trace) {}

  attempted(): void {
    this.span.annotate("attempts", ++this.attempts);
  }

  answered(status: number): void {
    this.span.annotate("status", status);
  }
}

export async function attemptOnce<T>(
  fetcher: Fetch,
  url: string,
  where: string,
  call: DataPlaneCall,
  headers: Record<string, string>,
  startReading: () => Reading<T>,
  tally: Tally | undefined,
  refusal: Refusal,
): Promise<T> {
  const { timeoutMs, signal, end } = step(call.context, call.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS);
  const who = call.service ?? "Prometheus";
  const startedAt = performance.now();
  let answered = false;
  try {
    if (timeoutMs <= 0)
      throw new ToolError(`${who} did not answer before the request deadline (${where}).`, "timeout");
    try {
      // Never follow a redirect: it would carry the signature and session token (or the basic auth) to
      // another host, and its answer would be taken as Prometheus's. aws-sigv4-fetch passes `redirect`
      // on to fetch with the signed request.
      const response = await fetcher(url, { method: "GET", headers, signal, redirect: "manual" });
      answered = true;
      tally?.answered(response.status);
      call.context.debug?.("Prometheus answered", {
        url: withoutCredentials(url),
        status: response.status,
        ms: Math.round((performance.now() - startedAt) * 100) / 100,
      });
      if (isRedirect(response)) {
        await response.body?.cancel().catch(() => undefined);
        throw redirected(who, response, url, where);
      }
      if (response.status < 200 || response.status >= 300) {
        return interpretFailure(
          who,
          response.status,
          await readCapped(response, MAX_ERROR_BODY_BYTES),
          where,
          refusal,
        );
      }
      const { sink, maxAnswerBytes } = startReading();
      const progress = call.context.progress;
      progress?.step(`${who} is answering (HTTP ${response.status})`);
      const onRead =
        progress && ((bytes: number, elements: number) => progress.reading(bytes, elements, who));
      const read = await readAnswer(response, `${who}'s answer at ${where}`, sink, maxAnswerBytes, onRead);
      return read.ok ? read.value : interpretFailure(who, response.status, read.body, where, refusal);
    } catch (error) {
      if (error instanceof ToolError || error instanceof Retryable) throw error;
      throw failedAttempt(error, { url, where, call, signal, timeoutMs, startedAt, answered });
    }
  } finally {
    end();
    call.context.report?.upstreamAttempts(1, performance.now() - startedAt);
  }
}
