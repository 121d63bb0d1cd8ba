import { describe, expect, it } from "vitest";
import { Memo } from "../../src/util/memoize.js";

describe("Memo (a bounded LRU of values built once per key)", () => {
  it("builds a value once per key", () => {
    const memo = new Memo<object>(4);
    let built = 0;
    const make = () => {
      built++;
      return {};
    };
    const a = memo.get(["a", undefined], make);
    expect(memo.get(["a", ""], make)).toBe(a);
    expect(memo.get(["a", "x"], make)).not.toBe(a);
    expect(built).toBe(2);
  });

  it("never holds more than its bound: the least recently used goes first", () => {
    const memo = new Memo<string>(3);
    for (const key of ["a", "b", "c"]) memo.get([key], () => key);
    memo.get(["a"], () => "rebuilt a"); // a is now the most recently used
    memo.get(["d"], () => "d"); // evicts b
    expect(memo.size).toBe(3);
    expect(memo.get(["a"], () => "rebuilt a")).toBe("a");
    expect(memo.get(["b"], () => "rebuilt b")).toBe("rebuilt b");
    for (let i = 0; i < 1_000; i++) memo.get([`k${i}`], () => String(i));
    expect(memo.size).toBe(3);
  });

  it("forgets a promise that rejects, so the next call builds again", async () => {
    const memo = new Memo<Promise<number>>(2);
    const failing = memo.get(["k"], () => Promise.reject(new Error("no")));
    await expect(failing).rejects.toThrow("no");
    expect(memo.size).toBe(0);
    expect(await memo.get(["k"], () => Promise.resolve(1))).toBe(1);
  });

  it("refuses a bound below 1", () => {
    expect(() => new Memo(0)).toThrow(RangeError);
  });
});
