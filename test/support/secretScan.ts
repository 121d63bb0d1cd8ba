/**
 * A setup file of every Vitest project (vitest.config.ts): no test may see a test credential
 * (./testSecrets.ts) written to the process's stdout or stderr, the server's logs among it, nor in
 * what a process it starts writes (`serverless offline`, the stdio entry, the runtime client…).
 * Writes pass through unchanged; one that holds a credential fails the test that made it, naming which.
 */
import childProcess, { type ChildProcess } from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import type { Readable } from "node:stream";
import { afterEach } from "vitest";
import { secretsIn, TEST_SECRETS } from "./testSecrets.js";

const found: string[] = [];

/** How much of a stream's last chunk is kept, so a credential split across two chunks is still seen. */
const CARRIED = Math.max(...TEST_SECRETS.map((secret) => secret.length));

/** Looks at everything `stream` carries, beside whoever reads it. */
function watch(stream: Readable | null | undefined, where: string): void {
  let tail = "";
  stream?.on("data", (chunk: unknown) => {
    const text = tail + String(chunk);
    for (const secret of secretsIn(text)) found.push(`${secret.slice(0, 4)}… in ${where}`);
    tail = text.slice(-CARRIED);
  });
}

/** Every child process a test starts, whichever way, has its output watched (once per worker). */
const WATCHING = Symbol.for("prometheus-mcp-lambda.secretScan.children");
const registry = childProcess as unknown as Record<string | symbol, unknown>;
if (registry[WATCHING] !== true) {
  registry[WATCHING] = true;
  for (const name of ["spawn", "execFile", "fork"] as const) {
    const original = childProcess[name] as (...args: unknown[]) => ChildProcess;
    registry[name] = (...args: unknown[]) => {
      const child = original(...args);
      const command = String(args[0]).split("/").pop();
      watch(child.stdout, `${command}'s stdout`);
      watch(child.stderr, `${command}'s stderr`);
      return child;
    };
  }
  const spawnSync = childProcess.spawnSync as (...args: unknown[]) => { stdout?: unknown; stderr?: unknown };
  registry.spawnSync = (...args: unknown[]) => {
    const result = spawnSync(...args);
    const command = String(args[0]).split("/").pop();
    for (const secret of secretsIn(`${String(result.stdout ?? "")}\n${String(result.stderr ?? "")}`)) {
      found.push(`${secret.slice(0, 4)}… in ${command}'s output`);
    }
    return result;
  };
  // ES modules that import the functions by name see these too.
  syncBuiltinESMExports();
}

for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : "";
    for (const secret of secretsIn(text))
      found.push(`${secret.slice(0, 4)}… in ${stream === process.stdout ? "stdout" : "stderr"}`);
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

afterEach(() => {
  if (found.length === 0) return;
  const which = found.splice(0);
  throw new Error(`A test credential was written to the process's output: ${which.join(", ")}`);
});
