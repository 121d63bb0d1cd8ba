import { describe, expect, it } from "vitest";
import { memoize } from "../../src/util/memoize.js";

/** A `make` whose promises the test settles, counting its calls. */
function controlled<T>() {
  const pending: { resolve: (value: T) => void; reject: (error: unknown) => void }[] = [];
  let calls = 0;
  const make = () => {
    calls++;
    return new Promise<T>((resolve, reject) => pending.push({ resolve, reject }));
  };
  return {
    make,
    pending,
    get calls() {
      return calls;
    },
  };
}

describe.each(["keep", "retry"] as const)("memoize (onRejection: %s)", (onRejection) => {
  it("does not call make before the first call", () => {
    const source = controlled<number>();
    memoize(source.make, { onRejection });
    expect(source.calls).toBe(0);
  });

  it("calls make once, however many calls and however they overlap; all share its promise", async () => {
    const source = controlled<number>();
    const get = memoize(source.make, { onRejection });
    const first = get();
    const concurrent = [get(), get(), get()];
    expect(source.calls).toBe(1);
    for (const promise of concurrent) expect(promise).toBe(first);
    source.pending[0]?.resolve(7);
    expect(await Promise.all(concurrent)).toEqual([7, 7, 7]);
    expect(await get()).toBe(7);
    expect(get()).toBe(first);
    expect(source.calls).toBe(1);
  });

  it("gives the calls made while it was pending the one rejection", async () => {
    const source = controlled<number>();
    const get = memoize(source.make, { onRejection });
    const calls = [get(), get()];
    source.pending[0]?.reject(new Error("no"));
    for (const call of calls) await expect(call).rejects.toThrow("no");
    expect(source.calls).toBe(1);
  });

  it("keeps nothing when make throws: the throw reaches the caller, and the next call tries again", async () => {
    let calls = 0;
    const get = memoize(
      () => {
        if (++calls === 1) throw new Error("sync");
        return Promise.resolve(calls);
      },
      { onRejection },
    );
    expect(() => get()).toThrow("sync");
    expect(await get()).toBe(2);
    expect(await get()).toBe(2);
  });
});

describe("memoize's rejections", () => {
  it("keep: every later call gets the same rejection, and make is never called again", async () => {
    const source = controlled<number>();
    const get = memoize(source.make, { onRejection: "keep" });
    const failed = get();
    source.pending[0]?.reject(new Error("no"));
    await expect(failed).rejects.toThrow("no");
    expect(get()).toBe(failed);
    await expect(get()).rejects.toThrow("no");
    expect(source.calls).toBe(1);
  });

  it("retry: forgotten once it settles, so the next call makes a new one, which is then kept", async () => {
    const source = controlled<number>();
    const get = memoize(source.make, { onRejection: "retry" });
    const failed = get();
    source.pending[0]?.reject(new Error("no"));
    await expect(failed).rejects.toThrow("no");
    const second = get();
    expect(second).not.toBe(failed);
    expect(source.calls).toBe(2);
    source.pending[1]?.resolve(2);
    expect(await second).toBe(2);
    expect(get()).toBe(second);
    expect(source.calls).toBe(2);
  });

  it("retry: a caller trying again from its own rejection handler already starts afresh", async () => {
    const source = controlled<number>();
    const get = memoize(source.make, { onRejection: "retry" });
    const retried = get().catch(() => get());
    source.pending[0]?.reject(new Error("no"));
    await Promise.resolve();
    await Promise.resolve();
    expect(source.calls).toBe(2);
    source.pending[1]?.resolve(3);
    expect(await retried).toBe(3);
  });
});
