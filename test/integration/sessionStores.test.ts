import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { DynamoSessionStore } from "../../src/sessions/dynamoStore.js";
import { FileSessionStore } from "../../src/sessions/fileStore.js";
import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import {
  SessionDataError,
  type SessionRecord,
  type SessionStore,
  SessionStoreError,
} from "../../src/sessions/store.js";
import { bundleForNode } from "../support/bundle.js";
import { runOk } from "../support/childProcess.js";
import { testContext } from "../support/context.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { advance, useFakeClock, waitUntil, watch } from "../support/fakeClock.js";
import { closeServer, listenLoopback, refusedUrl } from "../support/net.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const nowSeconds = () => Math.floor(Date.now() / 1000);

const ctx = () => testContext(10_000);

function record(overrides: Partial<SessionRecord> = {}): SessionRecord {
  const now = Date.now();
  return {
    sessionId: randomUUID(),
    initializeParams: {
      protocolVersion: "2025-06-18",
      capabilities: {
        roots: { listChanged: true },
        sampling: {},
        experimental: { list: [1, "two", { three: true }], empty: {}, flag: false, nothing: null },
      },
      clientInfo: { name: "contract-test", version: "1.0.0", title: "héllo" },
    },
    protocolVersion: "2025-06-18",
    logLevel: undefined,
    principal: "arn:aws:iam::123456789012:user/alice",
    createdAt: now,
    updatedAt: now,
    expiresAt: nowSeconds() + 3600,
    version: 1,
    ...overrides,
  };
}

let dynamo: Dynalite;

beforeAll(async () => {
  dynamo = await startDynalite();
});

afterAll(async () => {
  await dynamo?.close();
});

interface Subject {
  name: string;
  /** A store for one test, and what to clean up after it. */
  make(): Promise<{ store: SessionStore; dispose?: () => Promise<void> }>;
}

const subjects: Subject[] = [
  { name: "MemorySessionStore", make: async () => ({ store: new MemorySessionStore() }) },
  {
    name: "DynamoSessionStore (dynalite)",
    make: async () => ({
      store: new DynamoSessionStore({
        tableName: dynamo.tableName,
        region: "us-east-1",
        endpoint: dynamo.endpoint,
      }),
    }),
  },
  {
    name: "FileSessionStore",
    make: async () => {
      const directory = await mkdtemp(join(tmpdir(), "file-sessions-"));
      const warnings: string[] = [];
      const store = new FileSessionStore({ directory, onWarning: (message) => warnings.push(message) });
      return {
        store,
        dispose: async () => {
          // Let a sweep under way finish before its directory goes.
          await store.sweep();
          await rm(directory, { recursive: true, force: true });
          expect(warnings).toEqual([]);
        },
      };
    },
  },
];

describe.each(subjects)("SessionStore contract: $name", (subject) => {
  let store: SessionStore;
  let dispose: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    ({ store, dispose } = await subject.make());
  });
  afterEach(async () => {
    await dispose?.();
  });

  it("round-trips every field of a created record, nested params included", async () => {
    const created = record();
    await store.create(created, ctx());
    const loaded = await store.get(created.sessionId, ctx());
    expect(loaded).toEqual(created);
    expect(loaded?.logLevel).toBeUndefined();
  });

  it("round-trips a record with a level and no principal", async () => {
    const created = record({ logLevel: "debug", principal: undefined });
    await store.create(created, ctx());
    expect(await store.get(created.sessionId, ctx())).toEqual(created);
  });

  it("returns undefined for an unknown id", async () => {
    expect(await store.get(randomUUID(), ctx())).toBeUndefined();
  });

  it("rejects creating an id that exists already and keeps the stored record", async () => {
    const created = record();
    await store.create(created, ctx());
    await expect(store.create({ ...created, protocolVersion: "other", version: 7 }, ctx())).rejects.toThrow();
    expect(await store.get(created.sessionId, ctx())).toEqual(created);
  });

  it("applies an update with the right version and bumps the version only when asked", async () => {
    const created = record();
    await store.create(created, ctx());

    const refreshed = { expiresAt: created.expiresAt + 60, updatedAt: created.updatedAt + 1 };
    expect(await store.update(created.sessionId, 1, refreshed, false, ctx())).toBe("updated");
    expect(await store.get(created.sessionId, ctx())).toEqual({ ...created, ...refreshed, version: 1 });

    expect(
      await store.update(
        created.sessionId,
        1,
        { logLevel: "info", updatedAt: created.updatedAt + 2 },
        true,
        ctx(),
      ),
    ).toBe("updated");
    expect(await store.get(created.sessionId, ctx())).toEqual({
      ...created,
      ...refreshed,
      logLevel: "info",
      updatedAt: created.updatedAt + 2,
      version: 2,
    });
  });

  it("answers conflict for a stale version and changes nothing", async () => {
    const created = record({ version: 5 });
    await store.create(created, ctx());
    expect(await store.update(created.sessionId, 4, { logLevel: "error" }, true, ctx())).toBe("conflict");
    expect(await store.update(created.sessionId, 6, { expiresAt: 1 }, false, ctx())).toBe("conflict");
    expect(await store.get(created.sessionId, ctx())).toEqual(created);
  });

  it("answers missing for an unknown id and creates nothing", async () => {
    const id = randomUUID();
    expect(await store.update(id, 1, { logLevel: "info" }, true, ctx())).toBe("missing");
    expect(await store.get(id, ctx())).toBeUndefined();
  });

  it("sets a log level, then clears it", async () => {
    const created = record();
    await store.create(created, ctx());
    expect(await store.update(created.sessionId, 1, { logLevel: "warning" }, true, ctx())).toBe("updated");
    expect((await store.get(created.sessionId, ctx()))?.logLevel).toBe("warning");
    expect(await store.update(created.sessionId, 2, { logLevel: undefined }, true, ctx())).toBe("updated");
    const cleared = await store.get(created.sessionId, ctx());
    expect(cleared).toEqual({ ...created, logLevel: undefined, version: 3 });
    expect(cleared !== undefined && Object.hasOwn(cleared, "logLevel")).toBe(true);
  });

  it("deletes once: true, then get is undefined and a second delete is false", async () => {
    const created = record();
    await store.create(created, ctx());
    expect(await store.delete(created.sessionId, ctx())).toBe(true);
    expect(await store.get(created.sessionId, ctx())).toBeUndefined();
    expect(await store.delete(created.sessionId, ctx())).toBe(false);
    expect(await store.update(created.sessionId, 1, { logLevel: "info" }, false, ctx())).toBe("missing");
  });

  it("does not filter expired records: expiry is the application's check", async () => {
    const expired = record({ expiresAt: nowSeconds() - 3600 });
    await store.create(expired, ctx());
    expect(await store.get(expired.sessionId, ctx())).toEqual(expired);
    expect(await store.update(expired.sessionId, 1, { updatedAt: Date.now() }, false, ctx())).toBe("updated");
  });

  it("keeps every number a session may hold exactly", async () => {
    const numbers = [
      0,
      1,
      -1,
      0.1,
      1 / 3,
      1e-130,
      -1e-130,
      123.456e-100,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
      1e15 + 0.5,
    ];
    const created = record({
      initializeParams: {
        protocolVersion: "2025-06-18",
        capabilities: { experimental: { numbers: { numbers } } },
      },
    });
    await store.create(created, ctx());
    expect(await store.get(created.sessionId, ctx())).toEqual(created);
  });

  it("refuses what it cannot keep exactly with SessionDataError, never SessionStoreError, and stores nothing", async () => {
    const refusals: [Record<string, unknown>, RegExp][] = [
      [JSON.parse('{"clientInfo":{"name":"c","version":"1","n":9007199254740994}}'), /9007199254740994/],
      [JSON.parse('{"capabilities":{"x":1e300}}'), /params\.capabilities\.x is 1e\+300/],
      [JSON.parse('{"capabilities":{"x":1e400}}'), /params\.capabilities\.x is Infinity/],
      [{ capabilities: { x: [1e-131] } }, /params\.capabilities\.x\[0\] is 1e-131/],
      [JSON.parse(`{"capabilities":${'{"a":'.repeat(40)}{}${"}".repeat(40)}}`), /nested 31 levels deep/],
      [
        { clientInfo: { name: "a\ud800", version: "1" } },
        /params\.clientInfo\.name is not well-formed Unicode/,
      ],
    ];
    for (const [initializeParams, message] of refusals) {
      const refused = record({ initializeParams });
      const error = await store.create(refused, ctx()).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(SessionDataError);
      expect(error).not.toBeInstanceOf(SessionStoreError);
      expect((error as Error).message).toMatch(message);
      expect(await store.get(refused.sessionId, ctx())).toBeUndefined();
    }
  });

  it("returns copies: mutating a returned record does not change the store", async () => {
    const created = record();
    await store.create(created, ctx());
    const loaded = await store.get(created.sessionId, ctx());
    if (!loaded) throw new Error("record not found");
    loaded.logLevel = "mutated";
    (loaded.initializeParams as { protocolVersion: string }).protocolVersion = "mutated";
    expect(await store.get(created.sessionId, ctx())).toEqual(created);
  });
});

describe("DynamoSessionStore only", () => {
  const makeStore = () =>
    new DynamoSessionStore({ tableName: dynamo.tableName, region: "us-east-1", endpoint: dynamo.endpoint });

  it("rejects a duplicate create with a SessionStoreError", async () => {
    const store = makeStore();
    const created = record();
    await store.create(created, ctx());
    await expect(store.create(created, ctx())).rejects.toBeInstanceOf(SessionStoreError);
  });

  it("an item DynamoDB refuses (over 400 KB) is a SessionDataError saying why, never a SessionStoreError", async () => {
    const store = makeStore();
    const refused = record({
      initializeParams: { capabilities: {}, clientInfo: { name: "x".repeat(420_000), version: "1" } },
    });
    const error = await store.create(refused, ctx()).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SessionDataError);
    expect((error as Error).message).toBe(
      "Invalid params for initialize: the session store cannot hold them (Item size has exceeded the maximum allowed size)",
    );
    expect(await store.get(refused.sessionId, ctx())).toBeUndefined();
  });

  it("a table name DynamoDB refuses stays the store's failure (503), not the client's", async () => {
    const store = new DynamoSessionStore({ tableName: "x", region: "us-east-1", endpoint: dynamo.endpoint });
    const error = await store.create(record(), ctx()).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SessionStoreError);
    expect((error as Error).message).toBe("session store create failed: ValidationException");
  });

  it("fails fast with SessionStoreError naming the operation during an outage, and keeps the data", async () => {
    const store = makeStore();
    const created = record();
    await store.create(created, ctx());

    await dynamo.cutOff();
    try {
      const operations: [string, () => Promise<unknown>][] = [
        ["create", () => store.create(record(), ctx())],
        ["get", () => store.get(created.sessionId, ctx())],
        ["update", () => store.update(created.sessionId, 1, { logLevel: "debug" }, true, ctx())],
        ["delete", () => store.delete(created.sessionId, ctx())],
      ];
      for (const [operation, run] of operations) {
        const error = await run().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error, operation).toBeInstanceOf(SessionStoreError);
        // Fast: failed on the refused connection, not by waiting out its time ("no answer within").
        expect((error as Error).message).toBe(`session store ${operation} failed: Error (ECONNREFUSED)`);
      }
    } finally {
      await dynamo.restore();
    }

    expect(await store.get(created.sessionId, ctx())).toEqual(created);
    expect(await store.update(created.sessionId, 1, { logLevel: "debug" }, true, ctx())).toBe("updated");
  });

  it("fails fast against an endpoint where nothing listens", async () => {
    const store = new DynamoSessionStore({
      tableName: dynamo.tableName,
      region: "us-east-1",
      endpoint: await refusedUrl(),
    });
    // Fast: failed on the refused connection, not by waiting out its time ("no answer within").
    await expect(store.get("anything", ctx())).rejects.toThrow(
      /^session store get failed: Error \(ECONNREFUSED\)$/,
    );
  });

  it("bounds each call by its cap, and by the request's deadline when that comes first", async () => {
    // Accepts every request and never answers it.
    const silent = createServer(() => {});
    const endpoint = await listenLoopback(silent);
    let received = 0;
    silent.on("request", () => received++);
    try {
      const store = new DynamoSessionStore({ tableName: dynamo.tableName, region: "us-east-1", endpoint });
      // On a clock moved by hand: not given up a millisecond before the cap (3 s) or the deadline, and
      // given up at it, saying which.
      for (const [deadlineMs, endsAfter] of [
        [30_000, 3_000],
        [700, 700],
      ] as const) {
        useFakeClock();
        try {
          const asked = received;
          const answer = watch(store.get("x", testContext(deadlineMs)));
          await waitUntil(() => received === asked + 1, "the get reaching DynamoDB");
          await advance(endsAfter - 1);
          expect(answer.settled, String(deadlineMs)).toBe(false);
          await advance(1);
          expect(answer.settled, String(deadlineMs)).toBe(true);
          await expect(answer.promise).rejects.toThrow(
            new RegExp(`^session store get failed: no answer within ${endsAfter} ms$`),
          );
          expect(received).toBe(asked + 1);
        } finally {
          vi.useRealTimers();
        }
      }
    } finally {
      await closeServer(silent);
    }
  });

  it("does not call at all once the deadline has passed, and stops when the request is cancelled", async () => {
    const silent = createServer(() => {});
    const endpoint = await listenLoopback(silent);
    let received = 0;
    silent.on("request", () => received++);
    try {
      const store = new DynamoSessionStore({ tableName: dynamo.tableName, region: "us-east-1", endpoint });
      const past = testContext(0);
      await expect(store.delete("x", past)).rejects.toThrow(/deadline has passed/);
      expect(received).toBe(0);
      const controller = new AbortController();
      // Ten minutes to the deadline, and a cap of 3 s: only the cancellation ends the call with this error.
      const answer = store.get("x", testContext(600_000, { signal: controller.signal }));
      await waitUntil(() => received === 1, "the get reaching DynamoDB");
      controller.abort();
      await expect(answer).rejects.toThrow(/^session store get failed: the request was cancelled$/);
      expect(received).toBe(1);
    } finally {
      await closeServer(silent);
    }
  });

  it("wraps a service error (unknown table) as SessionStoreError", async () => {
    const store = new DynamoSessionStore({
      tableName: "no-such-table",
      region: "us-east-1",
      endpoint: dynamo.endpoint,
    });
    await expect(store.get("x", ctx())).rejects.toThrow(
      /^session store get failed: ResourceNotFoundException/,
    );
    await expect(store.update("x", 1, { logLevel: "info" }, true, ctx())).rejects.toThrow(
      /session store update failed/,
    );
  });

  it("lets exactly one of two concurrent writers win per version", async () => {
    const a = makeStore();
    const b = makeStore();
    const created = record();
    await a.create(created, ctx());

    for (let version = 1; version <= 5; version++) {
      const results = await Promise.all([
        a.update(created.sessionId, version, { logLevel: `a${version}` }, true, ctx()),
        b.update(created.sessionId, version, { logLevel: `b${version}` }, true, ctx()),
      ]);
      expect([...results].sort()).toEqual(["conflict", "updated"]);
      const winner = results[0] === "updated" ? "a" : "b";
      expect(await a.get(created.sessionId, ctx())).toMatchObject({
        version: version + 1,
        logLevel: `${winner}${version}`,
      });
    }
  });

  it("never loses an update when concurrent writers re-read and re-apply on conflict", async () => {
    const created = record();
    await makeStore().create(created, ctx());

    /** Appends `key` to a field of the session, re-reading and retrying on conflict as the session manager does. */
    async function addKey(store: SessionStore, key: string): Promise<number> {
      for (let attempt = 1; attempt <= 50; attempt++) {
        const current = await store.get(created.sessionId, ctx());
        if (!current) throw new Error("session vanished");
        const appended = current.logLevel === undefined ? key : `${current.logLevel},${key}`;
        const result = await store.update(
          current.sessionId,
          current.version,
          { logLevel: appended },
          true,
          ctx(),
        );
        if (result === "updated") return attempt;
        expect(result).toBe("conflict");
      }
      throw new Error(`no update for ${key} after 50 attempts`);
    }

    const writers = [makeStore(), makeStore()];
    const keys = Array.from({ length: 10 }, (_, index) => `k${index}`);
    await Promise.all(keys.map((key, index) => addKey(writers[index % 2] as SessionStore, key)));

    const final = await writers[0]?.get(created.sessionId, ctx());
    expect(final?.logLevel?.split(",").sort()).toEqual([...keys].sort());
    expect(final?.version).toBe(1 + keys.length);
  });

  it("does not load the AWS SDK when the module is imported, only on first use", async () => {
    // Bundle the store (packages external) next to node_modules, import it in a fresh node process
    // and look at the CommonJS module cache (the SDK packages resolve to their CJS builds).
    const cache = join(ROOT, "node_modules", ".cache");
    await mkdir(cache, { recursive: true });
    const dir = await mkdtemp(join(cache, "lazy-dynamo-"));
    try {
      const outfile = join(dir, "dynamoStore.mjs");
      await build({
        entryPoints: [join(ROOT, "src/sessions/dynamoStore.ts")],
        bundle: true,
        packages: "external",
        format: "esm",
        platform: "node",
        outfile,
        logLevel: "silent",
      });
      const script = `
        import { createRequire } from "node:module";
        const require = createRequire(import.meta.url);
        const sdkLoaded = () => Object.keys(require.cache).some((path) => /[\\\\/]@aws-sdk[\\\\/](client-dynamodb|lib-dynamodb)[\\\\/]/.test(path));
        const { DynamoSessionStore } = await import(${JSON.stringify(outfile)});
        const store = new DynamoSessionStore({ tableName: "t", region: "us-east-1", endpoint: ${JSON.stringify(await refusedUrl())} });
        const afterImport = sdkLoaded();
        const error = await store.get("x", { deadlineAt: Date.now() + 10000, signal: new AbortController().signal }).then(() => undefined, (e) => e.name + ": " + e.message);
        console.log(JSON.stringify({ afterImport, afterUse: sdkLoaded(), error }));
      `;
      const output = await runNode(script, dir);
      const result = JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
      expect(result).toMatchObject({ afterImport: false, afterUse: true });
      expect(result.error).toMatch(/^SessionStoreError: session store get failed/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("FileSessionStore across processes", () => {
  /** Run by each child: N read-modify-write updates of one session, or a create of each of a list of ids. */
  const CHILD = `
    import { stat, writeFile } from "node:fs/promises";
    import { FileSessionStore } from "./fileStore.mjs";
    const [directory, mode, tag, barrier, arg] = process.argv.slice(2);
    const store = new FileSessionStore({ directory, onWarning: (message) => console.error("warning:", message) });
    const context = () => ({ deadlineAt: Date.now() + 20000, signal: new AbortController().signal, replyBytes: Infinity });
    const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
    // The store's first count of the directory, which a first create waits for, done before the race:
    // otherwise the child whose count ends first runs ahead, and the two never meet.
    await store.sweep();
    // Each child says it is ready; once both are, both start 100 ms after the later one.
    await writeFile(barrier + "-" + tag, "");
    let readyAt = [];
    while (readyAt.length < 2) {
      readyAt = (await Promise.all(["a", "b"].map((each) => stat(barrier + "-" + each).catch(() => undefined))))
        .filter(Boolean).map((ready) => ready.mtimeMs);
      if (readyAt.length < 2) await pause();
    }
    const startAt = Math.max(...readyAt) + 100;
    // Both children take their turn i together (at startAt + i × 4 ms): otherwise the first to start runs
    // ahead and the two rarely meet.
    const turn = async (i) => {
      while (Date.now() < startAt + i * 4) await pause();
    };
    if (mode === "update") {
      const [sessionId, count] = arg.split(",");
      let updated = 0;
      let conflicts = 0;
      for (let i = 0; i < Number(count); i++) {
        await turn(i);
        for (;;) {
          const current = await store.get(sessionId, context());
          const logLevel = current.logLevel + "," + tag + i;
          const result = await store.update(sessionId, current.version, { logLevel, updatedAt: Date.now() }, true, context());
          if (result === "updated") break;
          if (result !== "conflict") throw new Error("update answered " + result);
          conflicts++;
        }
        updated++;
      }
      console.log(JSON.stringify({ updated, conflicts }));
    } else {
      const won = [];
      const lost = [];
      for (const [i, sessionId] of arg.split(",").entries()) {
        await turn(i);
        const now = Date.now();
        const record = { sessionId, initializeParams: {}, protocolVersion: "2025-06-18", logLevel: undefined,
          principal: tag, createdAt: now, updatedAt: now, expiresAt: Math.floor(now / 1000) + 3600, version: 1 };
        await store.create(record, context()).then(() => won.push(sessionId), (error) => lost.push(error.name + ": " + error.message));
      }
      console.log(JSON.stringify({ won, lost }));
    }
  `;

  let dir: string;
  let directory: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "file-store-processes-"));
    directory = join(dir, "sessions");
    await bundleForNode(join(ROOT, "src/sessions/fileStore.ts"), join(dir, "fileStore.mjs"));
    await writeFile(join(dir, "child.mjs"), CHILD);
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs both children at once, each with its tag, and parses what each printed. */
  async function both<T>(mode: string, arg: string): Promise<[T, T]> {
    const barrier = join(dir, `ready-${mode}`);
    const env = { ...process.env, NODE_OPTIONS: "" };
    const outputs = await Promise.all(
      ["a", "b"].map((tag) =>
        runOk(process.execPath, [join(dir, "child.mjs"), directory, mode, tag, barrier, arg], {
          cwd: dir,
          env,
          timeoutMs: 60_000,
        }),
      ),
    );
    for (const { stderr } of outputs) expect(stderr).not.toContain("warning:");
    return outputs.map(({ stdout }) => JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}")) as [T, T];
  }

  it("two processes updating one session lose no update", async () => {
    const store = new FileSessionStore({ directory });
    const created = record({ logLevel: "start", version: 1 });
    await store.create(created, ctx());

    const count = 200;
    const results = await both<{ updated: number; conflicts: number }>(
      "update",
      `${created.sessionId},${count}`,
    );
    expect(results.map(({ updated }) => updated)).toEqual([count, count]);
    // Both wrote at the same time: some of their writes met (else this test proves nothing).
    expect(results[0].conflicts + results[1].conflicts).toBeGreaterThan(0);

    const final = await store.get(created.sessionId, ctx());
    expect(final?.version).toBe(1 + 2 * count);
    const applied = final?.logLevel?.split(",") ?? [];
    const expected = ["a", "b"].flatMap((tag) => Array.from({ length: count }, (_, i) => `${tag}${i}`));
    expect(applied.slice(1).sort()).toEqual(expected.sort());
    // Each process's own updates in its order.
    for (const tag of ["a", "b"]) {
      expect(applied.filter((entry) => entry.startsWith(tag))).toEqual(
        Array.from({ length: count }, (_, i) => `${tag}${i}`),
      );
    }
    expect((await readdir(directory)).filter((name) => !name.endsWith(".json"))).toEqual([]);
  });

  it("two processes creating the same ids: exactly one wins each, the other is told it exists", async () => {
    const ids = Array.from({ length: 100 }, () => randomUUID());
    const [a, b] = await both<{ won: string[]; lost: string[] }>("create", ids.join(","));
    // Each won some: the two really met at each id, rather than one running ahead.
    expect(a.won.length).toBeGreaterThan(0);
    expect(b.won.length).toBeGreaterThan(0);
    expect([...a.won, ...b.won].sort()).toEqual([...ids].sort());
    expect(a.won.length + b.won.length).toBe(ids.length);
    expect([...a.lost, ...b.lost]).toEqual(
      Array(ids.length).fill("SessionStoreError: session store create failed: the id exists already"),
    );
    const store = new FileSessionStore({ directory });
    for (const [tag, won] of [
      ["a", a.won],
      ["b", b.won],
    ] as const) {
      for (const id of won) expect((await store.get(id, ctx()))?.principal).toBe(tag);
    }
  });
});

async function runNode(script: string, cwd: string): Promise<string> {
  const env = { ...process.env, NODE_OPTIONS: "" };
  return (
    await runOk(process.execPath, ["--input-type=module", "-e", script], { cwd, env, timeoutMs: 60_000 })
  ).stdout;
}
