import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Expectation, headersOf, mismatches, printedResult } from "./expectations.js";
import { copyService, pool, ROOT, runSls, type SlsRun } from "./sls.js";

/**
 * `serverless invoke local -f mcp -p events/<file>` for one sample event of each kind (event source,
 * session or not, batch, base64 body, an upstream call, each environment variant), checked against the
 * contract outcome recorded for it in events/expected.json. Every sample event is answered as recorded
 * through AWS's runtime client on the packaged function (runtimeClient.test.ts); here what is proved is
 * that osls runs the function on such events, which each osls run (a few seconds of CPU) shows alike.
 */

interface ExpectedFile {
  environment: Record<string, string>;
  events: Record<string, Expectation>;
}

const EVENTS_DIR = join(ROOT, "events");
const expected = JSON.parse(readFileSync(join(EVENTS_DIR, "expected.json"), "utf8")) as ExpectedFile;
const allEventFiles = readdirSync(EVENTS_DIR)
  .filter((file) => file.endsWith(".json") && file !== "expected.json")
  .sort();
/** The events run through osls: each event source and environment variant, and the shapes osls parses. */
const INVOKED = [
  "direct-batch.json",
  "direct-tools-list.json",
  "fnurl-health.json",
  "fnurl-tools-list.json",
  "v1-initialize-empty-params.json",
  "v1-stage-prefix-tools-list.json",
  "v1-tools-call-get-server-info.json",
  "v2-base64-body.json",
  "v2-delete-mcp-sessions-off.json",
  "v2-initialize.json",
  "v2-modern-tools-call-get-server-info.json",
  "v2-python-compat-tool-error.json",
  "v2-tools-call-execute-query.json",
  "v2-tools-list.json",
];
const eventFiles = INVOKED.filter((file) => allEventFiles.includes(file));
const CONCURRENCY = Number(process.env.SLS_INVOKE_CONCURRENCY ?? 2);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

describe("the outcome matcher", () => {
  const printed = printedResult(
    `{"level":"WARN","message":"log line first"}\n${JSON.stringify(
      {
        statusCode: 200,
        headers: { "Content-Type": "application/json" },
        body: { jsonrpc: "2.0", id: 1, result: { tools: [{}, {}] } },
      },
      null,
      4,
    )}`,
  );

  it("finds the printed result after log lines", () => {
    expect(printed).toMatchObject({ statusCode: 200, body: { id: 1 } });
    expect(printedResult('{"level":"INFO"}\n')).toBeUndefined();
  });

  it("accepts a matching outcome", () => {
    expect(
      mismatches(printed, { status: 200, contentType: "application/json", jsonrpc: { id: 1, result: true } }),
    ).toEqual([]);
  });

  it("reports every kind of mismatch", () => {
    const found = mismatches(printed, {
      status: 201,
      contentType: null,
      headers: { allow: "POST" },
      jsonrpc: { id: "1", result: { tools: { length: 5 } } },
    });
    expect(found).toHaveLength(5);
    expect(mismatches(printed, { jsonrpc: { id: 1, error: -32600 } })).not.toEqual([]);
    expect(mismatches(printed, { batch: [{ id: 1 }] })).not.toEqual([]);
    expect(mismatches({ jsonrpc: "2.0", id: 1, result: {} }, { direct: true, result: null })).not.toEqual([]);
    expect(mismatches(undefined, { direct: true, result: null })).toEqual([]);
  });
});

describe("events/expected.json", () => {
  it("has an expectation for every event file, and an event file for every expectation", () => {
    expect(Object.keys(expected.events).sort()).toEqual(allEventFiles);
  });

  it("the events invoked here exist, and cover every event source and every environment variant", () => {
    expect(eventFiles).toEqual(INVOKED);
    const kinds = (files: readonly string[]) => new Set(files.map((file) => file.split("-")[0]));
    expect(kinds(eventFiles)).toEqual(kinds(allEventFiles));
    const variants = (files: readonly string[]) =>
      new Set(files.map((file) => JSON.stringify(expected.events[file]?.environment ?? {})));
    expect(variants(eventFiles)).toEqual(variants(allEventFiles));
  });
});

describe("serverless invoke local on every sample event", () => {
  const runs = new Map<string, SlsRun>();
  let services: { dir: string; dispose(): Promise<void> }[] = [];

  beforeAll(async () => {
    services = await Promise.all(Array.from({ length: CONCURRENCY }, () => copyService()));
    await pool(eventFiles, CONCURRENCY, async (file, slot) => {
      const service = services[slot];
      if (!service) throw new Error(`no service copy for slot ${slot}`);
      const run = await runSls(["invoke", "local", "-f", "mcp", "-p", join(EVENTS_DIR, file)], {
        cwd: service.dir,
        env: { ...expected.environment, ...expected.events[file]?.environment },
        timeoutMs: 90_000,
      });
      runs.set(file, run);
    });
  }, 900_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => service.dispose()));
  });

  it.each(eventFiles)("%s", (file) => {
    const run = runs.get(file);
    const want = expected.events[file];
    expect(run, "not run").toBeDefined();
    expect(want, "no expectation").toBeDefined();
    if (!run || !want) return;
    const output = `exit ${run.code} after ${run.ms} ms\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    let printed: unknown;
    expect(() => {
      printed = printedResult(run.stdout);
    }, output).not.toThrow();
    expect(mismatches(printed, want), output).toEqual([]);
  });

  // Sessions are on by default; invoke local has no SESSION_TABLE (serverless.yml: sessionStore=memory).
  it.each(["v2-initialize.json", "v1-initialize-empty-params.json"])(
    "%s opens a session: Mcp-Session-Id is a fresh UUID",
    (file) => {
      const run = runs.get(file);
      expect(run, "not run").toBeDefined();
      const printed = printedResult(run?.stdout ?? "") as Record<string, unknown> | undefined;
      expect(printed, run?.stdout).toBeTypeOf("object");
      const id = headersOf(printed ?? {})["mcp-session-id"];
      expect(id, JSON.stringify(printed)).toMatch(UUID);
      expect(id).not.toBe("5f0c1b2a-0000-4000-8000-000000000000");
    },
  );

  it("a request without a session id stays stateless: no Mcp-Session-Id", () => {
    const printed = printedResult(runs.get("v2-tools-list.json")?.stdout ?? "") as
      | Record<string, unknown>
      | undefined;
    expect(printed).toMatchObject({ statusCode: 200 });
    expect(headersOf(printed ?? {})).not.toHaveProperty("mcp-session-id");
  });
});

describe("serverless invoke local with frontDoor=streaming", () => {
  it("runs the buffered handler on a REST API event, as it answers behind any front door", async () => {
    const service = await copyService();
    try {
      const file = "v1-tools-call-get-server-info.json";
      const want = expected.events[file];
      if (want === undefined) throw new Error(`events/expected.json has nothing for ${file}`);
      const run = await runSls(
        ["invoke", "local", "-f", "mcp", "-p", join(EVENTS_DIR, file), "--param=frontDoor=streaming"],
        {
          cwd: service.dir,
          env: { ...expected.environment, ...want.environment },
          timeoutMs: 90_000,
        },
      );
      const output = `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.code, output).toBe(0);
      expect(mismatches(printedResult(run.stdout), want), output).toEqual([]);
    } finally {
      await service.dispose();
    }
  }, 120_000);
});
