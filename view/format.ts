/** How the view writes times and values: pure, shared with the tests that read what it shows. */

/** A number in at most 4 significant digits, with k/M/G/T for large ones. */
export function compact(value: number): string {
  const size = Math.abs(value);
  for (const [limit, suffix] of [
    [1e12, "T"],
    [1e9, "G"],
    [1e6, "M"],
    [1e3, "k"],
  ] as const) {
    if (size >= limit) return `${Number((value / limit).toPrecision(4))}${suffix}`;
  }
  return String(Number(value.toPrecision(4)));
}

/** `2023-11-14 22:13:20Z`: an on-call engineer's logs and alerts speak UTC, in 24 hours. */
export function utc(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace("T", " ")}Z`;
}

/** A time axis tick: the hour and minute (and the date when the range spans days), in UTC. */
export function timeTick(seconds: number, times: readonly number[]): string {
  const text = utc(seconds);
  const days = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 86_400;
  return days > 1
    ? `${text.slice(5, 10)} ${text.slice(11, 16)}`
    : text.slice(11, seconds % 60 === 0 ? 16 : 19);
}
