import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Invoked, type RuntimeApi, startRuntimeApi, startRuntimeClient } from "../support/runtimeApi.js";
import { type Expectation, mismatches } from "./expectations.js";
import { copyService, ROOT, runSls } from "./sls.js";
import { readZip } from "./zip.js";

// The packaged function (`serverless package`'s mcp.zip, laid out as Lambda's /var/task) run by the
// real Node runtime interface client, aws-lambda-ric, on Node 24 as in the nodejs24.x runtime: it
// polls a small Runtime API of this test's own (test/support/runtimeApi.ts) for each sample event in
// events/ and posts the function's answer back, which must be what events/expected.json says.

const EVENTS_DIR = join(ROOT, "events");
/** The handler as the packaged template names it (`_HANDLER`, which the runtime client reads). */
const HANDLER = "src/lambda/handler.handler";

interface Expected {
  environment: Record<string, string>;
  events: Record<string, Expectation>;
}

/** The packaged zip's files, written out as Lambda lays out the task root. */
async function packagedTaskRoot(dir: string): Promise<string> {
  const service = await copyService();
  try {
    const out = join(dir, "package");
    const run = await runSls(["package", "--package", out], { cwd: service.dir, timeoutMs: 180_000 });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const task = join(dir, "task");
    for (const [name, content] of readZip(await readFile(join(out, "mcp.zip")))) {
      await mkdir(dirname(join(task, name)), { recursive: true });
      await writeFile(join(task, name), content);
    }
    return task;
  } finally {
    await service.dispose();
  }
}

/** The function's answer as `invoke local` prints it: the parsed result, undefined for null. */
function answerOf(invoked: Invoked): unknown {
  if ("error" in invoked) throw new Error(`the function failed: ${JSON.stringify(invoked.error)}`);
  if ("stream" in invoked)
    throw new Error("the function streamed its answer: mcp.zip's handler is the buffered one");
  const value = JSON.parse(invoked.result) as unknown;
  return value === null ? undefined : value;
}

describe("the packaged function run by the real Node runtime client (aws-lambda-ric, Node 24)", () => {
  let dir: string;
  let task: string;
  let expected: Expected;
  const answers = new Map<string, unknown>();
  const clients: ChildProcess[] = [];
  const apis: RuntimeApi[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pml-ric-"));
    task = await packagedTaskRoot(dir);
    expected = JSON.parse(await readFile(join(EVENTS_DIR, "expected.json"), "utf8")) as Expected;
    // One runtime (one container) per environment the events ask for; its events one after another.
    const groups = new Map<string, string[]>();
    for (const [file, want] of Object.entries(expected.events)) {
      const key = JSON.stringify(want.environment ?? {});
      groups.set(key, [...(groups.get(key) ?? []), file]);
    }
    for (const [key, files] of groups) {
      const api = await startRuntimeApi();
      apis.push(api);
      const client = startRuntimeClient(task, HANDLER, api, { ...expected.environment, ...JSON.parse(key) });
      clients.push(client);
      for (const file of files.sort()) {
        const event = JSON.parse(await readFile(join(EVENTS_DIR, file), "utf8")) as unknown;
        answers.set(file, answerOf(await api.invoke(event)));
      }
      expect(api.initError).toBeUndefined();
    }
  }, 600_000);

  afterAll(async () => {
    for (const child of clients) if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    await Promise.all(apis.map((api) => api.close()));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("answers every sample event as events/expected.json says", async () => {
    const files = (await readdir(EVENTS_DIR)).filter((file) => file !== "expected.json").sort();
    expect([...answers.keys()].sort()).toStrictEqual(files);
    const wrong = files.flatMap((file) =>
      mismatches(answers.get(file), expected.events[file] as Expectation).map(
        (problem) => `${file}: ${problem}`,
      ),
    );
    expect(wrong).toStrictEqual([]);
  });
});
