import { setTimeout as sleep } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it, vi } from "vitest";
import {
  abortedByDeadline,
  startRequest,
  step,
  timeLeft,
  withMargin,
  withShareOfReply,
} from "../../src/context.js";
import { testContext } from "../support/context.js";
import { advance, useFakeClock } from "../support/fakeClock.js";

setFlagsFromString("--expose_gc");
const collectGarbage = runInNewContext("gc") as () => void;

describe("request context", () => {
  it("a request's signal is made on first use and aborts at the deadline, as a TimeoutError", async () => {
    // On a clock moved by hand: the deadline is exact, and the signal aborts at it, not a millisecond before.
    useFakeClock();
    try {
      const request = startRequest({ timeoutMs: 100, principal: "arn:aws:iam::1:user/a" });
      expect(request.principal).toBe("arn:aws:iam::1:user/a");
      expect(timeLeft(request)).toBe(100);
      const { signal } = request;
      expect(request.signal).toBe(signal);
      await advance(99);
      expect(signal.aborted).toBe(false);
      await advance(1);
      expect(abortedByDeadline(signal)).toBe(true);
      request.end();
    } finally {
      vi.useRealTimers();
    }
  });

  it("end() releases the deadline's timer; a signal first asked for after end() is already aborted", async () => {
    useFakeClock();
    try {
      const answered = startRequest({ timeoutMs: 50 });
      const { signal } = answered;
      answered.end();
      expect(vi.getTimerCount()).toBe(0);
      await advance(100);
      expect(signal.aborted).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    const late = startRequest({ timeoutMs: 10_000 });
    late.end();
    expect(late.signal.aborted).toBe(true);
    expect(abortedByDeadline(late.signal)).toBe(false);
  });

  it("withMargin moves the deadline earlier and keeps the request's signal and caller", () => {
    const request = startRequest({ timeoutMs: 1_000, principal: "p" });
    const narrowed = withMargin(request, 250);
    expect(narrowed.deadlineAt).toBe(request.deadlineAt - 250);
    expect(narrowed.principal).toBe("p");
    expect(narrowed.signal).toBe(request.signal);
    request.end();
  });

  it("a batch's requests each get an equal share of the reply, with the request's deadline and signal", () => {
    const request = startRequest({ timeoutMs: 1_000, replyBytes: 3_000_000 });
    const share = withShareOfReply(withMargin(request, 100), 8);
    expect(share.replyBytes).toBe(375_000);
    expect(share.deadlineAt).toBe(request.deadlineAt - 100);
    expect(share.signal).toBe(request.signal);
    expect(startRequest({ timeoutMs: 1 }).replyBytes).toBe(Number.POSITIVE_INFINITY);
    request.end();
  });

  it("a step ends at its cap even when a garbage collection runs meanwhile", async () => {
    const context = testContext(10_000);
    const { signal, timeoutMs, end } = step(context, 150);
    expect(timeoutMs).toBe(150);
    await sleep(20);
    collectGarbage();
    await sleep(300);
    expect(abortedByDeadline(signal)).toBe(true);
    end();
  });

  it("a step never outlasts its request, and a cancelled request is not a timeout", async () => {
    const short = step(testContext(100), 30_000);
    expect(short.timeoutMs).toBeLessThanOrEqual(100);
    short.end();
    const controller = new AbortController();
    const cancelled = step(testContext(10_000, { signal: controller.signal }), 30_000);
    controller.abort();
    expect(cancelled.signal.aborted).toBe(true);
    expect(abortedByDeadline(cancelled.signal)).toBe(false);
    cancelled.end();
  });
});
