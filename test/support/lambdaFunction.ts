import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleAsShipped } from "./bundle.js";
import { type RuntimeApi, startRuntimeApi, startRuntimeClient } from "./runtimeApi.js";

/** A function as Lambda would run it here: its Runtime API, and a way to stop it all. */
export interface LambdaFunction {
  api: RuntimeApi;
  close(): Promise<void>;
}

/**
 * One entry of the function (`src/lambda/<entry>.ts`, exported `handler`), bundled as serverless.yml bundles it
 * (the entry and its chunks in the task root's src/) and run by AWS's Node runtime client on Node 24
 * against a local Runtime API, in `containers` runtime clients (each takes one invocation at a time,
 * as a Lambda container does), with `environment`.
 */
export async function startLambdaFunction(
  root: string,
  entry: "handler" | "streamHandler",
  environment: Record<string, string>,
  containers = 1,
): Promise<LambdaFunction> {
  const dir = await mkdtemp(join(tmpdir(), `pml-${entry}-`));
  const runtimes: ChildProcess[] = [];
  let api: RuntimeApi | undefined;
  const close = async () => {
    for (const runtime of runtimes) if (runtime.pid !== undefined) process.kill(-runtime.pid, "SIGKILL");
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await bundleAsShipped(root, join(dir, "task", "src"), {
      entryPoints: { [`lambda/${entry}`]: `src/lambda/${entry}.ts` },
    });
    api = await startRuntimeApi();
    for (let i = 0; i < containers; i++) {
      runtimes.push(startRuntimeClient(join(dir, "task"), `src/lambda/${entry}.handler`, api, environment));
    }
    return { api, close };
  } catch (error) {
    await close();
    throw error;
  }
}
