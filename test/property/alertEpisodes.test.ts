import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  type Episode,
  episodesOf,
  MAX_DATE_SECONDS,
  type Presence,
  presencesOfSeries,
} from "../../src/results/alertEpisodes.js";

/** A tolerance small against the times drawn, so that gaps over and under it both come often. */
const TOLERANCE = 100;

interface Sample {
  time: number;
  state: "pending" | "firing";
  /** The ALERTS_FOR_STATE value written with it (activeAt), when one was. */
  activeAt?: number;
}

/** One alert's samples: distinct times, each pending or firing, some with an activeAt at or before it. */
const samplesArb = fc
  .uniqueArray(
    fc.record({
      time: fc.integer({ min: 0, max: 3_000 }),
      state: fc.constantFrom("pending" as const, "firing" as const),
      back: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 40, selector: (sample) => sample.time },
  )
  .map((drawn) =>
    drawn
      .map(
        ({ time, state, back }): Sample => ({
          time,
          state,
          ...(back === undefined ? {} : { activeAt: time - back }),
        }),
      )
      .sort((a, b) => a.time - b.time),
  );

function presences(samples: readonly Sample[]): Presence[] {
  return samples.flatMap((sample): Presence[] => [
    { state: sample.state, from: sample.time, to: sample.time },
    ...(sample.activeAt === undefined
      ? []
      : [{ state: "active_at" as const, from: sample.time, to: sample.time, activeAt: [sample.activeAt] }]),
  ]);
}

/** The episode a sample time belongs to: the last one whose onset is at or before it. */
function episodeIndex(episodes: readonly Episode[], time: number): number {
  let index = -1;
  for (const [i, episode] of episodes.entries()) if (episode.onset <= time) index = i;
  return index;
}

/** Runs a property, then checks that every branch it asserts in ran at least `min` times. */
function checkBranches(
  property: fc.IPropertyWithHooks<[Sample[]]>,
  counts: Record<string, number>,
  min = 20,
) {
  fc.assert(property, { numRuns: 400 });
  for (const [branch, count] of Object.entries(counts))
    expect(count, `branch "${branch}" ran`).toBeGreaterThanOrEqual(min);
}

describe("alert episodes (src/results/alertEpisodes.ts)", () => {
  it("a gap up to the tolerance never splits an episode; one over it always does", () => {
    const counts = { under: 0, over: 0 };
    checkBranches(
      fc.property(samplesArb, (samples) => {
        const episodes = episodesOf(presences(samples), { toleranceSeconds: TOLERANCE, ongoingAfter: 3_000 });
        for (let i = 1; i < samples.length; i++) {
          const [before, after] = [samples[i - 1] as Sample, samples[i] as Sample];
          const [a, b] = [episodeIndex(episodes, before.time), episodeIndex(episodes, after.time)];
          if (after.time - before.time <= TOLERANCE) {
            counts.under++;
            expect(b).toBe(a);
          } else {
            counts.over++;
            expect(b).toBe(a + 1);
          }
        }
        const gaps = samples.slice(1).filter((s, i) => s.time - (samples[i] as Sample).time > TOLERANCE);
        expect(episodes).toHaveLength(gaps.length + 1);
      }),
      counts,
    );
  });

  it("an onset is never later than a sample of its episode, and reaches back to the activeAt recorded in it", () => {
    const counts = { fromActiveAt: 0, fromSample: 0 };
    checkBranches(
      fc.property(samplesArb, (samples) => {
        const episodes = episodesOf(presences(samples), { toleranceSeconds: TOLERANCE, ongoingAfter: 3_000 });
        for (const [index, episode] of episodes.entries()) {
          const own = samples.filter((s) => episodeIndex(episodes, s.time) === index);
          const first = Math.min(...own.map((s) => s.time));
          for (const sample of own) expect(episode.onset).toBeLessThanOrEqual(sample.time);
          const previousEnd = episodes[index - 1]?.lastSeen ?? Number.NEGATIVE_INFINITY;
          const reaching = own
            .map((s) => s.activeAt)
            .filter((at): at is number => at !== undefined && at > previousEnd && at < first);
          if (reaching.length > 0) {
            counts.fromActiveAt++;
            expect(episode.onset).toBe(Math.min(...reaching));
          } else {
            counts.fromSample++;
            expect(episode.onset).toBe(first);
          }
          expect(episode.lastSeen).toBe(Math.max(...own.map((s) => s.time)));
        }
      }),
      counts,
    );
  });

  it("firing_from is the first firing sample (a drop back to pending moves it not), never before pending_from; the onset when never pending before", () => {
    const counts = { pendingThenFiring: 0, firingAtOnset: 0, neverFired: 0, droppedBack: 0 };
    checkBranches(
      fc.property(samplesArb, (samples) => {
        const episodes = episodesOf(presences(samples), { toleranceSeconds: TOLERANCE, ongoingAfter: 3_000 });
        for (const [index, episode] of episodes.entries()) {
          const own = samples.filter((s) => episodeIndex(episodes, s.time) === index);
          const firing = own.filter((s) => s.state === "firing").map((s) => s.time);
          if (firing.length === 0) {
            counts.neverFired++;
            expect(episode.firingFrom).toBeUndefined();
            expect(episode.pendingFrom).toBe(episode.onset);
            continue;
          }
          const firstFiring = Math.min(...firing);
          if (own.some((s) => s.state === "pending" && s.time > firstFiring)) counts.droppedBack++;
          if (own.some((s) => s.state === "pending" && s.time <= firstFiring)) {
            counts.pendingThenFiring++;
            expect(episode.firingFrom).toBe(firstFiring);
            expect(episode.pendingFrom).toBe(episode.onset);
            expect(episode.firingFrom).toBeGreaterThanOrEqual(episode.pendingFrom as number);
          } else {
            counts.firingAtOnset++;
            expect(episode.firingFrom).toBe(episode.onset);
            expect(episode.pendingFrom).toBeUndefined();
          }
        }
      }),
      counts,
    );
  });

  it("episodes come oldest first, apart, and only the last may be ongoing", () => {
    const counts = { ongoing: 0, ended: 0 };
    checkBranches(
      fc.property(samplesArb, fc.integer({ min: 0, max: 3_000 }), (samples, ongoingAfter) => {
        const episodes = episodesOf(presences(samples), { toleranceSeconds: TOLERANCE, ongoingAfter });
        for (let i = 1; i < episodes.length; i++) {
          const [before, after] = [episodes[i - 1] as Episode, episodes[i] as Episode];
          expect(after.onset).toBeGreaterThan(before.lastSeen);
          expect(before.ongoing).toBe(false);
        }
        const last = episodes.at(-1) as Episode;
        if (last.lastSeen >= ongoingAfter) {
          counts.ongoing++;
          expect(last.ongoing).toBe(true);
        } else {
          counts.ended++;
          expect(last.ongoing).toBe(false);
        }
      }) as unknown as fc.IPropertyWithHooks<[Sample[]]>,
      counts,
    );
  });

  it("a series read as runs (presencesOfSeries) gives the episodes its single samples give", () => {
    const counts = { merged: 0 };
    checkBranches(
      fc.property(samplesArb, (samples) => {
        const series = (state: Sample["state"]) =>
          samples.filter((s) => s.state === state).map((s): [number, number] => [s.time, 1]);
        const forState = samples
          .filter((s) => s.activeAt !== undefined)
          .map((s): [number, number] => [s.time, s.activeAt as number]);
        const runs = [
          ...presencesOfSeries("pending", series("pending"), TOLERANCE),
          ...presencesOfSeries("firing", series("firing"), TOLERANCE),
          ...presencesOfSeries("active_at", forState, TOLERANCE),
        ];
        if (runs.length < presences(samples).length) counts.merged++;
        const options = { toleranceSeconds: TOLERANCE, ongoingAfter: 2_000 };
        expect(episodesOf(runs, options)).toStrictEqual(episodesOf(presences(samples), options));
      }),
      counts,
    );
  });
});

describe("times no date holds (an odd upstream's; found by the fuzz suite's odd-times answers)", () => {
  it("are left out of the record: samples beyond MAX_DATE_SECONDS, and activeAt values beyond it", () => {
    const odd = [-1e20, -MAX_DATE_SECONDS - 1, MAX_DATE_SECONDS + 1, 1e300, Number.POSITIVE_INFINITY];
    const samples = [...odd.map((t) => [t, 1] as const), [1_700_000_000, 1] as const];
    expect(presencesOfSeries("firing", samples)).toEqual([
      { state: "firing", from: 1_700_000_000, to: 1_700_000_000 },
    ]);
    const activeAt = presencesOfSeries("active_at", [
      [1_700_000_000, 1e20],
      [1_700_000_060, 1_699_999_000],
    ]);
    expect(activeAt).toEqual([
      { state: "active_at", from: 1_700_000_000, to: 1_700_000_060, activeAt: [1_699_999_000] },
    ]);
    const [episode] = episodesOf(activeAt, { ongoingAfter: 1_800_000_000 });
    expect(episode?.onset).toBe(1_699_999_000);
  });
});
