/** An abort signal for one attempt: fires when the caller aborts or when `timeoutMs` elapses. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** True when the attempt was aborted by its own timer rather than by the caller. */
  timedOut(): boolean;
  dispose(): void;
}

export function attemptSignal(timeoutMs: number, parent?: AbortSignal): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
    },
    Math.max(0, timeoutMs),
  );
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParentAbort);
    },
  };
}

export function timeLeft(deadlineAt: number): number {
  return deadlineAt - Date.now();
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
