import { vi } from "vitest";

/** What the process wrote to stdout and stderr since `captureOutput()`, as text and as parsed lines. */
export interface CapturedOutput {
  text(): string;
  /** Each non-empty line parsed as JSON (the function's log and metrics lines are JSON). */
  lines(): Record<string, unknown>[];
}

/** Diverts stdout and stderr into memory until `vi.restoreAllMocks()`. */
export function captureOutput(): CapturedOutput {
  const chunks: string[] = [];
  const capture = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(capture as typeof process.stdout.write);
  vi.spyOn(process.stderr, "write").mockImplementation(capture as typeof process.stderr.write);
  const text = () => chunks.join("");
  return {
    text,
    lines: () =>
      text()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
