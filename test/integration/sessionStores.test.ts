import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoSessionStore } from "../../src/sessions/dynamoStore.js";
import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import { type SessionRecord, type SessionStore, SessionStoreError } from "../../src/sessions/store.js";
import { runOk } from "../support/childProcess.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { closeServer, listenLoopback, refusedUrl } from "../support/net.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const nowSeconds = () => Math.floor(Date.now() / 1000);

function record(overrides: Partial<SessionRecord> = {}): SessionRecord {
  const now = Date.now();
  return {
    sessionId: randomUUID(),
    initializeParams: {
      protocolVersion: "2025-06-18",
      capabilities: { roots: { listChanged: true }, sampling: {} },
      clientInfo: { name: "contract-test", version: "1.0.0" },
    },
    protocolVersion: "2025-06-18",
    logLevel: undefined,
    data: {
      counter: 3,
      nested: { list: [1, "two", { three: true }], empty: {}, flag: false, nothing: null },
      text: "héllo",
    },
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
  make(): SessionStore;
}

const subjects: Subject[] = [
  { name: "MemorySessionStore", make: () => new MemorySessionStore() },
  {
    name: "DynamoSessionStore (dynalite)",
    make: () =>
      new DynamoSessionStore({ tableName: dynamo.tableName, region: "us-east-1", endpoint: dynamo.endpoint }),
  },
];

describe.each(subjects)("SessionStore contract: $name", (subject) => {
  let store: SessionStore;
  beforeAll(() => {
    store = subject.make();
  });

  it("round-trips every field of a created record, nested data included", async () => {
    const created = record();
    await store.create(created);
    const loaded = await store.get(created.sessionId);
    expect(loaded).toEqual(created);
    expect(loaded?.logLevel).toBeUndefined();
  });

  it("round-trips a record with a level, no principal and empty data", async () => {
    const created = record({ logLevel: "debug", principal: undefined, data: {} });
    await store.create(created);
    expect(await store.get(created.sessionId)).toEqual(created);
  });

  it("returns undefined for an unknown id", async () => {
    expect(await store.get(randomUUID())).toBeUndefined();
  });

  it("rejects creating an id that exists already and keeps the stored record", async () => {
    const created = record();
    await store.create(created);
    await expect(store.create({ ...created, protocolVersion: "other", version: 7 })).rejects.toThrow();
    expect(await store.get(created.sessionId)).toEqual(created);
  });

  it("applies an update with the right version and bumps the version only when asked", async () => {
    const created = record();
    await store.create(created);

    const refreshed = { expiresAt: created.expiresAt + 60, updatedAt: created.updatedAt + 1 };
    expect(await store.update(created.sessionId, 1, refreshed, false)).toBe("updated");
    expect(await store.get(created.sessionId)).toEqual({ ...created, ...refreshed, version: 1 });

    const data = { counter: 4, added: { deep: ["x"] } };
    expect(await store.update(created.sessionId, 1, { data, updatedAt: created.updatedAt + 2 }, true)).toBe(
      "updated",
    );
    expect(await store.get(created.sessionId)).toEqual({
      ...created,
      ...refreshed,
      data,
      updatedAt: created.updatedAt + 2,
      version: 2,
    });
  });

  it("answers conflict for a stale version and changes nothing", async () => {
    const created = record({ version: 5 });
    await store.create(created);
    expect(await store.update(created.sessionId, 4, { logLevel: "error", data: { lost: true } }, true)).toBe(
      "conflict",
    );
    expect(await store.update(created.sessionId, 6, { expiresAt: 1 }, false)).toBe("conflict");
    expect(await store.get(created.sessionId)).toEqual(created);
  });

  it("answers missing for an unknown id and creates nothing", async () => {
    const id = randomUUID();
    expect(await store.update(id, 1, { logLevel: "info" }, true)).toBe("missing");
    expect(await store.get(id)).toBeUndefined();
  });

  it("sets a log level, then clears it", async () => {
    const created = record();
    await store.create(created);
    expect(await store.update(created.sessionId, 1, { logLevel: "warning" }, true)).toBe("updated");
    expect((await store.get(created.sessionId))?.logLevel).toBe("warning");
    expect(await store.update(created.sessionId, 2, { logLevel: undefined }, true)).toBe("updated");
    const cleared = await store.get(created.sessionId);
    expect(cleared).toEqual({ ...created, logLevel: undefined, version: 3 });
    expect(cleared !== undefined && Object.hasOwn(cleared, "logLevel")).toBe(true);
  });

  it("deletes once: true, then get is undefined and a second delete is false", async () => {
    const created = record();
    await store.create(created);
    expect(await store.delete(created.sessionId)).toBe(true);
    expect(await store.get(created.sessionId)).toBeUndefined();
    expect(await store.delete(created.sessionId)).toBe(false);
    expect(await store.update(created.sessionId, 1, { logLevel: "info" }, false)).toBe("missing");
  });

  it("does not filter expired records: expiry is the application's check", async () => {
    const expired = record({ expiresAt: nowSeconds() - 3600 });
    await store.create(expired);
    expect(await store.get(expired.sessionId)).toEqual(expired);
    expect(await store.update(expired.sessionId, 1, { updatedAt: Date.now() }, false)).toBe("updated");
  });

  it("returns copies: mutating a returned record does not change the store", async () => {
    const created = record();
    await store.create(created);
    const loaded = await store.get(created.sessionId);
    if (!loaded) throw new Error("record not found");
    loaded.data.counter = 99;
    (loaded.initializeParams as { protocolVersion: string }).protocolVersion = "mutated";
    expect(await store.get(created.sessionId)).toEqual(created);
  });
});

describe("DynamoSessionStore only", () => {
  const makeStore = () =>
    new DynamoSessionStore({ tableName: dynamo.tableName, region: "us-east-1", endpoint: dynamo.endpoint });

  it("rejects a duplicate create with a SessionStoreError", async () => {
    const store = makeStore();
    const created = record();
    await store.create(created);
    await expect(store.create(created)).rejects.toBeInstanceOf(SessionStoreError);
  });

  it("fails fast with SessionStoreError naming the operation during an outage, and keeps the data", async () => {
    const store = makeStore();
    const created = record();
    await store.create(created);

    await dynamo.cutOff();
    try {
      const operations: [string, () => Promise<unknown>][] = [
        ["create", () => store.create(record())],
        ["get", () => store.get(created.sessionId)],
        ["update", () => store.update(created.sessionId, 1, { logLevel: "debug" }, true)],
        ["delete", () => store.delete(created.sessionId)],
      ];
      for (const [operation, run] of operations) {
        const started = Date.now();
        const error = await run().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(Date.now() - started, operation).toBeLessThan(5000);
        expect(error, operation).toBeInstanceOf(SessionStoreError);
        const message = (error as Error).message;
        expect(message, operation).toContain(operation);
        expect(message).not.toMatch(/\n\s+at |AKID|secret/i);
      }
    } finally {
      await dynamo.restore();
    }

    expect(await store.get(created.sessionId)).toEqual(created);
    expect(await store.update(created.sessionId, 1, { logLevel: "debug" }, true)).toBe("updated");
  });

  it("fails fast against an endpoint where nothing listens", async () => {
    const store = new DynamoSessionStore({
      tableName: dynamo.tableName,
      region: "us-east-1",
      endpoint: await refusedUrl(),
    });
    const started = Date.now();
    await expect(store.get("anything")).rejects.toThrow(/session store get failed/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("gives up on an endpoint that accepts connections but never answers (request timeout, 2 attempts)", async () => {
    // Accepts every request and never answers it.
    const silent = createServer(() => {});
    const endpoint = await listenLoopback(silent);
    try {
      const store = new DynamoSessionStore({ tableName: dynamo.tableName, region: "us-east-1", endpoint });
      const started = Date.now();
      await expect(store.get("x")).rejects.toThrow(/^session store get failed: TimeoutError/);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(2900);
      expect(elapsed).toBeLessThan(8000);
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
    await expect(store.get("x")).rejects.toThrow(/^session store get failed: ResourceNotFoundException/);
    await expect(store.update("x", 1, { logLevel: "info" }, true)).rejects.toThrow(
      /session store update failed/,
    );
  });

  it("lets exactly one of two concurrent writers win per version", async () => {
    const a = makeStore();
    const b = makeStore();
    const created = record();
    await a.create(created);

    for (let version = 1; version <= 5; version++) {
      const results = await Promise.all([
        a.update(created.sessionId, version, { data: { writer: "a", version } }, true),
        b.update(created.sessionId, version, { data: { writer: "b", version } }, true),
      ]);
      expect([...results].sort()).toEqual(["conflict", "updated"]);
      const winner = results[0] === "updated" ? "a" : "b";
      expect(await a.get(created.sessionId)).toMatchObject({
        version: version + 1,
        data: { writer: winner, version },
      });
    }
  });

  it("never loses an update when concurrent writers re-read and re-apply on conflict", async () => {
    const created = record({ data: {} });
    await makeStore().create(created);

    /** Adds `key` to the session's data, retrying on conflict as the session manager does. */
    async function addKey(store: SessionStore, key: string): Promise<number> {
      for (let attempt = 1; attempt <= 50; attempt++) {
        const current = await store.get(created.sessionId);
        if (!current) throw new Error("session vanished");
        const result = await store.update(
          current.sessionId,
          current.version,
          { data: { ...current.data, [key]: attempt } },
          true,
        );
        if (result === "updated") return attempt;
        expect(result).toBe("conflict");
      }
      throw new Error(`no update for ${key} after 50 attempts`);
    }

    const writers = [makeStore(), makeStore()];
    const keys = Array.from({ length: 10 }, (_, index) => `k${index}`);
    await Promise.all(keys.map((key, index) => addKey(writers[index % 2] as SessionStore, key)));

    const final = await writers[0]?.get(created.sessionId);
    expect(Object.keys(final?.data ?? {}).sort()).toEqual([...keys].sort());
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
        const error = await store.get("x").then(() => undefined, (e) => e.name + ": " + e.message);
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

async function runNode(script: string, cwd: string): Promise<string> {
  const env = { ...process.env, NODE_OPTIONS: "" };
  return (
    await runOk(process.execPath, ["--input-type=module", "-e", script], { cwd, env, timeoutMs: 60_000 })
  ).stdout;
}
