/**
 * A setup file of every Vitest project (vitest.config.ts): no test may see a test credential
 * (./testSecrets.ts) written to the process's stdout or stderr, the server's logs among it. Writes pass
 * through unchanged; one that holds a credential fails the test that made it, naming which.
 */
import { afterEach } from "vitest";
import { secretsIn } from "./testSecrets.js";

const found: string[] = [];

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
