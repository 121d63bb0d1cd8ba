import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleForNode } from "./bundle.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** test/support/streamWriterProbe.ts bundled to one file a child Node can run. */
export async function bundleStreamWriter(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "stream-writer-"));
  return bundleForNode(join(ROOT, "test/support/streamWriterProbe.ts"), join(dir, "streamWriterProbe.mjs"));
}

/** One invocation of the streaming entry running in a process of its own. */
export interface StreamWriter {
  child: ChildProcess;
  /** Ends the invocation as Lambda ends a sandbox: SIGKILL, nothing more written. Resolves once it is gone. */
  kill(): Promise<void>;
}

/**
 * Invokes the streaming entry once with `event` in a process of its own (the bundle of
 * bundleStreamWriter), with `environment` and a Lambda context of `remainingMs`.
 */
export function startStreamWriter(
  bundle: string,
  environment: Record<string, string>,
  event: unknown,
  remainingMs: number,
): StreamWriter {
  const child = spawn(
    process.execPath,
    [bundle, JSON.stringify(environment), JSON.stringify(event), String(remainingMs)],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const exited = once(child, "exit");
  return {
    child,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
