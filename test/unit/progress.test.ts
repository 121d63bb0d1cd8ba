import { describe, expect, it } from "vitest";
import { ProgressNotifier, type ProgressUpdate, READING_INTERVAL_MS } from "../../src/progress.js";

function notifier() {
  const sent: ProgressUpdate[] = [];
  const clock = { now: 0 };
  return {
    sent,
    clock,
    progress: new ProgressNotifier(
      (update) => sent.push(update),
      () => clock.now,
    ),
  };
}

describe("ProgressNotifier", () => {
  it("tells every step at once, counting progress up by one each time, at its log level", () => {
    const { sent, progress } = notifier();
    progress.step("Asked Prometheus (/api/v1/query)");
    progress.step("Attempt 2 of 3 after HTTP 503 from Prometheus, in 0.2 s", "warning");
    progress.step("Prometheus is answering (HTTP 200)");
    progress.reading(2048, 3, "Prometheus");
    expect(sent).toStrictEqual([
      { progress: 1, message: "Asked Prometheus (/api/v1/query)", level: "info" },
      { progress: 2, message: "Attempt 2 of 3 after HTTP 503 from Prometheus, in 0.2 s", level: "warning" },
      { progress: 3, message: "Prometheus is answering (HTTP 200)", level: "info" },
      { progress: 4, message: "Reading Prometheus's answer: 3 entries, 2 kB so far", level: "debug" },
    ]);
  });

  it("tells reading at most once per interval, whatever the chunks, and steps in between", () => {
    const { sent, clock, progress } = notifier();
    for (let chunk = 0; chunk < 100; chunk++) {
      clock.now = chunk * 10; // a chunk every 10 ms for a second
      progress.reading((chunk + 1) * 1_000, chunk, "Prometheus");
      if (chunk === 50) progress.step("a step");
    }
    const readings = sent.filter((update) => update.message.startsWith("Reading"));
    expect(readings).toHaveLength(Math.ceil(1_000 / READING_INTERVAL_MS));
    expect(sent.map((update) => update.message)).toContain("a step");
    expect(sent.map((update) => update.progress)).toStrictEqual(sent.map((_, i) => i + 1));
    expect(readings[0]?.message).toBe("Reading Prometheus's answer: 1 kB so far");
    expect(readings[1]?.message).toBe("Reading Prometheus's answer: 25 entries, 26 kB so far");
  });

  it("words sizes and counts for a person", () => {
    const { sent, clock, progress } = notifier();
    progress.reading(1_234_567, 1, "Alertmanager");
    clock.now += READING_INTERVAL_MS;
    progress.reading(12_345_678, 4_321, "Prometheus");
    expect(sent.map((update) => update.message)).toStrictEqual([
      "Reading Alertmanager's answer: 1 entry, 1.2 MB so far",
      "Reading Prometheus's answer: 4,321 entries, 12.3 MB so far",
    ]);
  });
});
