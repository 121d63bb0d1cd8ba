import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ExecuteQuery, ExecuteRangeQuery } from "../../tools/index.js";
import { durationMs, parseRelativeTime, resolveTime, unixSeconds } from "../../tools/relativeTime.js";
import { ToolError } from "../../tools/types.js";
import { makeToolCall, toolError, validationErrors } from "../support/toolCall.js";

// `now` and `now-<duration>` in time, start and end: the grammar, the arithmetic, and the errors.

/** The test's own unit table (Prometheus: y = 365d, w = 7d), in BigInt so nothing rounds. */
const UNIT_MS: Record<string, bigint> = {
  y: 31_536_000_000n,
  w: 604_800_000n,
  d: 86_400_000n,
  h: 3_600_000n,
  m: 60_000n,
  s: 1_000n,
  ms: 1n,
};
const UNITS = Object.keys(UNIT_MS);

/** Unix seconds with at most three decimals and no trailing zero, as whole milliseconds. */
function exactMs(seconds: string): bigint {
  const match = /^(\d+)(?:\.(\d{0,2}[1-9]))?$/.exec(seconds);
  if (!match) throw new Error(`not canonical Unix seconds: ${seconds}`);
  return BigInt(match[1] as string) * 1000n + BigInt((match[2] ?? "").padEnd(3, "0"));
}

/** A Prometheus duration: each unit at most once, largest first, with its exact length. */
const duration = fc
  .array(fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }), {
    minLength: UNITS.length,
    maxLength: UNITS.length,
  })
  .filter((counts) => counts.some((count) => count !== undefined))
  .map((counts) => {
    let text = "";
    let ms = 0n;
    counts.forEach((count, index) => {
      if (count === undefined) return;
      const unit = UNITS[index] as string;
      text += `${count}${unit}`;
      ms += BigInt(count) * (UNIT_MS[unit] as bigint);
    });
    return { text, ms };
  });

// Any moment from 1970 to 2100, in whole milliseconds.
const nowMs = fc.integer({ min: 0, max: 4_102_444_800_000 });

describe("durations", () => {
  it.each([
    ["1h", 3_600_000],
    ["90m", 5_400_000],
    ["1h30m", 5_400_000],
    ["2d", 172_800_000],
    ["1w", 604_800_000],
    ["1y", 31_536_000_000],
    ["500ms", 500],
    ["1m30s500ms", 90_500],
    ["0h", 0],
    ["007m", 420_000],
  ])("%s is %d ms", (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });

  it.each(["", "h", "1.5h", "1m1h", "1h1h", "5x", "1H", " 1h", "1h ", "-1h", "+1h", "1 h", "1hour", "1µs"])(
    "%j is not a duration",
    (text) => {
      expect(durationMs(text)).toBe("invalid");
    },
  );

  it.each(["300000y", "9007199254740992ms", "99999999999999999999s", "285617y"])("%s is too long", (text) => {
    expect(durationMs(text)).toBe("too long");
  });

  test.prop([duration])("any generated duration counts exactly", ({ text, ms }) => {
    const counted = durationMs(text);
    expect(typeof counted).toBe("number");
    expect(BigInt(counted as number)).toBe(ms);
  });
});

describe("resolving a time argument", () => {
  test.prop([nowMs, duration])("now-<d> is now minus d exactly, in Unix seconds", (now, { text, ms }) => {
    fc.pre(BigInt(now) >= ms);
    expect(exactMs(resolveTime("start", `now-${text}`, now))).toBe(BigInt(now) - ms);
  });

  test.prop([nowMs])("now is the clock reading itself", (now) => {
    expect(exactMs(resolveTime("time", "now", now))).toBe(BigInt(now));
    expect(resolveTime("time", "now-0s", now)).toBe(resolveTime("time", "now", now));
  });

  const unixTime = fc
    .tuple(
      fc.integer({ min: 0, max: 4_102_444_800 }),
      fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
    )
    .map(([seconds, fraction]) => (fraction === undefined ? String(seconds) : `${seconds}.${fraction}`));
  const rfc3339 = fc
    .date({ min: new Date(0), max: new Date(4_102_444_800_000), noInvalidDate: true })
    .chain((date) =>
      fc.constantFrom(
        date.toISOString(),
        date.toISOString().replace(/\.\d{3}Z$/, "Z"),
        date.toISOString().replace("Z", "+05:30"),
      ),
    );

  test.prop([fc.oneof(unixTime, rfc3339), nowMs])(
    "absolute times are valid and sent exactly as given, whatever the clock",
    (time, now) => {
      expect(validationErrors(ExecuteQuery, { query: "up", time })).toEqual([]);
      expect(resolveTime("time", time, now)).toBe(time);
    },
  );

  it("writes Unix seconds without float rounding or trailing zeros", () => {
    expect(unixSeconds(1_700_000_000_000)).toBe("1700000000");
    expect(unixSeconds(1_700_000_000_500)).toBe("1700000000.5");
    expect(unixSeconds(1_700_000_000_050)).toBe("1700000000.05");
    expect(unixSeconds(1_700_000_000_123)).toBe("1700000000.123");
    expect(unixSeconds(1)).toBe("0.001");
    expect(unixSeconds(0)).toBe("0");
  });

  it("a duration reaching back before 1970 is a tool error naming the parameter", () => {
    expect(() => resolveTime("start", "now-1h", 3_599_999)).toThrow(ToolError);
    expect(() => resolveTime("start", "now-1h", 3_599_999)).toThrow(/^start reaches back before 1970/);
    expect(resolveTime("start", "now-1h", 3_600_000)).toBe("0");
  });

  it("only values starting with now are relative", () => {
    expect(parseRelativeTime("time", "1700000000")).toBeUndefined();
    expect(parseRelativeTime("time", "Now-1h")).toBeUndefined();
    expect(parseRelativeTime("time", "now-1h")).toStrictEqual({ backMs: 3_600_000 });
  });
});

describe("what the tools accept and say", () => {
  const RANGE = { query: "up", start: "now-1h", end: "now", step: "60s" };
  const FORMS =
    "time must be an RFC 3339 timestamp (e.g. 2023-11-14T22:13:20Z), Unix seconds (e.g. 1700000000 or 1700000000.5), now, or now-<duration> (e.g. now-5m, now-1h30m, now-2d)";
  const DURATION_FORMS =
    "must be now or now-<duration>, the duration whole numbers with the units y, w, d, h, m, s, ms, largest first (e.g. now-5m, now-90m, now-1h30m, now-2d)";

  it.each([
    "now",
    "now-5m",
    "now-1h",
    "now-90m",
    "now-1h30m",
    "now-2d",
    "now-1w",
    "now-1y",
    "now-0h",
    "now-1500ms",
  ])("accepts time=%s", (time) => {
    expect(validationErrors(ExecuteQuery, { query: "up", time })).toEqual([]);
  });

  it("accepts relative bounds, or one relative and one absolute", () => {
    expect(validationErrors(ExecuteRangeQuery, RANGE)).toEqual([]);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, end: "1700003600" })).toEqual([]);
  });

  it.each([
    [
      "now+1h",
      "time can only look back from now: use now-<duration> (e.g. now-1h), or give a later time as RFC 3339 or Unix seconds",
    ],
    ["now-", `time ${DURATION_FORMS}`],
    ["now-5x", `time ${DURATION_FORMS}`],
    ["now-1.5h", `time ${DURATION_FORMS}`],
    ["now-1m1h", `time ${DURATION_FORMS}`],
    ["now -1h", `time ${DURATION_FORMS}`],
    ["nowish", `time ${DURATION_FORMS}`],
    [
      "now-300000y",
      "time reaches back before 1970-01-01T00:00:00Z (Unix time 0), where no data can be: use a shorter now-<duration> (e.g. now-1h)",
    ],
    ["NOW", FORMS],
    ["yesterday", FORMS],
  ])("refuses time=%j with a message naming it and the accepted forms", (time, message) => {
    expect(validationErrors(ExecuteQuery, { query: "up", time })).toEqual([`time: ${message}`]);
  });

  it("names start or end, whichever is wrong", () => {
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, start: "now+1h" })).toEqual([
      "start: start can only look back from now: use now-<duration> (e.g. now-1h), or give a later time as RFC 3339 or Unix seconds",
    ]);
    expect(validationErrors(ExecuteRangeQuery, { ...RANGE, end: "now-5x" })).toEqual([
      `end: end ${DURATION_FORMS}`,
    ]);
  });

  it("a bound before 1970 at call time is a tool error, before anything is sent", async () => {
    const call = {
      ...makeToolCall({ prometheusUrl: "http://127.0.0.1:9", prometheusAuth: "none" }),
      clock: () => 60_000,
    };
    const error = await toolError(ExecuteRangeQuery, { ...RANGE, start: "now-2m", end: "now-1m" }, call);
    expect(error.message).toMatch(/^start reaches back before 1970-01-01T00:00:00Z/);
  });

  it("the schemas tools/list shows say that now-<duration> is accepted", () => {
    const schemaOf = (tool: typeof ExecuteQuery) =>
      z.toJSONSchema(tool.inputSchema, { io: "input" }) as {
        properties: Record<string, { description?: string }>;
      };
    const instant = schemaOf(ExecuteQuery).properties;
    const range = schemaOf(ExecuteRangeQuery).properties;
    expect(instant.time?.description).toContain("now-<duration> (e.g. now-5m)");
    expect(range.start?.description).toContain("now-<duration> (e.g. now-1h");
    expect(range.end?.description).toContain("now, or now-<duration>");
  });
});
