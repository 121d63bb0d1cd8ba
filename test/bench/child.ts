// Measurements that need a process of their own: the benchmark bundle (run.mjs) runs itself again with
// BENCH_CHILD naming the job, under an environment of the parent's choosing. As in Lambda, the child's
// stdout and stderr are pipes that this (parent) process reads and throws away; results come back over
// the IPC channel. The child may write marker lines (`childMark`) to its own stdout: the parent keeps
// what the child wrote between `begin` and `end`, so a figure can say what the handler wrote.
import { spawn } from "node:child_process";

const MARK = "@@bench-mark ";
/** Most bytes kept per marked window, and of stderr's tail for reporting a failed child. */
const KEEP_BYTES = 1 << 20;
const STDERR_TAIL_BYTES = 8_192;
/** A child still running after this long is killed (a full figure 1 child takes under a minute). */
const CHILD_TIMEOUT_MS = 10 * 60_000;

/** What the child wrote to stdout between `childMark("begin", name)` and `childMark("end", name)`. */
export interface Window {
  lines: string[];
  bytes: number;
}

export interface ChildRun<T> {
  result: T;
  windows: Record<string, Window>;
  /** Bytes the child wrote to stderr over its whole run. */
  stderrBytes: number;
}

/**
 * Runs `job` in a fresh process (the running bundle with the same Node flags) with exactly `env` as
 * its environment, and returns what it sends back.
 */
export async function runChild<T>(
  job: string,
  env: Record<string, string | undefined>,
  args: string[] = [],
): Promise<ChildRun<T>> {
  const script = process.argv[1];
  if (script === undefined) throw new Error("no script to run the child from");
  const child = spawn(process.execPath, [...process.execArgv, script, ...args], {
    env: { ...env, BENCH_CHILD: job },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const { stdout, stderr } = child;
  if (stdout === null || stderr === null) throw new Error("the bench child has no stdout or stderr pipe");
  const windows: Record<string, Window> = {};
  let open: { name: string; window: Window } | undefined;
  let partial = "";
  stdout.setEncoding("utf8");
  stdout.on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith(MARK)) {
        const [edge, name = ""] = line.slice(MARK.length).split(" ");
        if (edge === "begin") open = { name, window: { lines: [], bytes: 0 } };
        else if (open !== undefined) {
          windows[open.name] = open.window;
          open = undefined;
        }
      } else if (open !== undefined) {
        open.window.bytes += Buffer.byteLength(line) + 1;
        if (open.window.bytes <= KEEP_BYTES) open.window.lines.push(line);
      }
    }
  });
  let stderrBytes = 0;
  let stderrTail = "";
  stderr.setEncoding("utf8");
  stderr.on("data", (chunk: string) => {
    stderrBytes += Buffer.byteLength(chunk);
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  let result: { value: T } | undefined;
  child.on("message", (message) => {
    result = { value: message as T };
  });
  const timer = setTimeout(() => child.kill(), CHILD_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  }).finally(() => clearTimeout(timer));
  if (code !== 0 || result === undefined) {
    throw new Error(
      `bench child ${job} exited with ${code}${result ? "" : " without a result"}:\n${stderrTail}`,
    );
  }
  return { result: result.value, windows, stderrBytes };
}

/** In the child: marks the start or end of a window of its stdout that the parent keeps. */
export function childMark(edge: "begin" | "end", name: string): void {
  process.stdout.write(`${MARK}${edge} ${name}\n`);
}

/** In the child: sends the result to the parent and lets the process end. */
export async function childReply(value: unknown): Promise<void> {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error("a bench child needs an IPC channel to its parent");
  // Everything written reaches the parent before the child exits.
  while (process.stdout.writableLength > 0) await new Promise((resolve) => setTimeout(resolve, 1));
  await new Promise<void>((resolve, reject) =>
    send(value, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );
  process.disconnect?.();
}
