import { randomUUID } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FILE_STORE_MAX_RECORD_BYTES, FileSessionStore } from "../../src/sessions/fileStore.js";
import { SessionDataError, type SessionRecord, SessionStoreError } from "../../src/sessions/store.js";
import { testContext } from "../helpers/context.js";

const ctx = () => testContext(10_000);
const T0 = 1_700_000_000_000;

function record(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    sessionId: randomUUID(),
    initializeParams: { protocolVersion: "2025-06-18", clientInfo: { name: "file-test", version: "1" } },
    protocolVersion: "2025-06-18",
    logLevel: undefined,
    principal: "arn:aws:iam::123456789012:user/alice",
    createdAt: T0,
    updatedAt: T0,
    expiresAt: T0 / 1000 + 3600,
    version: 1,
    ...overrides,
  };
}

/** What a caught rejection was, to look at its class and message. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(caught instanceof Error)) throw new Error("expected a rejection");
  return caught;
}

/** Sets a file's modification time `ageMs` in the past. */
async function age(path: string, ageMs: number): Promise<void> {
  const then = new Date(Date.now() - ageMs);
  await utimes(path, then, then);
}

let root: string;
let directory: string;
let clock: { now: number };
let warnings: string[];
let stores: FileSessionStore[];

/** A store on the test's directory, on the test's clock, its warnings collected. */
function open(at = directory): FileSessionStore {
  const store = new FileSessionStore({
    directory: at,
    now: () => clock.now,
    onWarning: (message) => warnings.push(message),
  });
  stores.push(store);
  return store;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "file-store-"));
  directory = join(root, "sessions");
  clock = { now: T0 };
  warnings = [];
  stores = [];
});

afterEach(async () => {
  // No sweep may still be running when the directory goes.
  await Promise.all(stores.map((store) => store.sweep()));
  await chmod(directory, 0o700).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

describe("FileSessionStore files", () => {
  it("makes its directory on first use, owner only, and keeps one JSON file per session, nothing else", async () => {
    const store = open(join(directory, "deeper", "still"));
    await expect(stat(directory)).rejects.toThrow(/ENOENT/);
    const created = record();
    await store.create(created, ctx());
    const where = join(directory, "deeper", "still");
    if (process.platform !== "win32") expect((await stat(where)).mode & 0o777).toBe(0o700);

    expect(await store.update(created.sessionId, 1, { logLevel: "info" }, true, ctx())).toBe("updated");
    expect(await readdir(where)).toEqual([`${created.sessionId}.json`]);
    const file = join(where, `${created.sessionId}.json`);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ ...created, logLevel: "info", version: 2 });
    if (process.platform !== "win32") expect((await stat(file)).mode & 0o777).toBe(0o600);

    expect(await store.delete(created.sessionId, ctx())).toBe(true);
    expect(await readdir(where)).toEqual([]);
  });

  it("survives a restart: a second store on the same directory reads and updates what the first wrote", async () => {
    const first = open();
    const created = record({ logLevel: "debug" });
    await first.create(created, ctx());
    expect(await first.update(created.sessionId, 1, { updatedAt: T0 + 5 }, true, ctx())).toBe("updated");

    const second = open();
    expect(await second.get(created.sessionId, ctx())).toEqual({ ...created, updatedAt: T0 + 5, version: 2 });
    expect(await second.update(created.sessionId, 1, { logLevel: "error" }, true, ctx())).toBe("conflict");
    expect(await second.update(created.sessionId, 2, { logLevel: "error" }, true, ctx())).toBe("updated");
    expect((await first.get(created.sessionId, ctx()))?.logLevel).toBe("error");
    await expect(second.create(created, ctx())).rejects.toThrow(/exists already/);
  });

  it("a crash between writing the temporary file and renaming it leaves the old record; the sweep removes the debris", async () => {
    const store = open();
    const created = record();
    await store.create(created, ctx());
    await store.sweep(); // the first-use sweep is over: the next one is this test's
    // What a writer that died mid-update leaves: its temporary file, half written, and its lock.
    const next = JSON.stringify({ ...created, logLevel: "info", version: 2 });
    const temp = join(directory, `.${created.sessionId}.4242.0123456789ab.tmp`);
    await writeFile(temp, next.slice(0, next.length / 2));
    const lock = join(directory, `${created.sessionId}.lock`);
    await writeFile(lock, "4242 dead");
    await age(temp, 2 * 60_000);
    await age(lock, 10_000);
    // And a writer at work right now: its temporary file is not debris yet.
    const fresh = join(directory, `.${randomUUID()}.4343.ba9876543210.tmp`);
    await writeFile(fresh, "{");

    expect(await store.get(created.sessionId, ctx())).toEqual(created);
    expect(await store.sweep()).toEqual({ expired: 0, temporary: 1, locks: 1 });
    expect((await readdir(directory)).sort()).toEqual(
      [`${created.sessionId}.json`, fresh.slice(directory.length + 1)].sort(),
    );
    expect(await store.update(created.sessionId, 1, { logLevel: "info" }, true, ctx())).toBe("updated");
    expect(await store.get(created.sessionId, ctx())).toEqual({ ...created, logLevel: "info", version: 2 });
    expect(warnings).toEqual([]);
  });

  it("refuses a record larger than a DynamoDB item with SessionDataError, storing nothing", async () => {
    const store = open();
    const big = record({
      initializeParams: { clientInfo: { name: "x".repeat(FILE_STORE_MAX_RECORD_BYTES), version: "1" } },
    });
    const error = await failure(store.create(big, ctx()));
    expect(error).toBeInstanceOf(SessionDataError);
    expect(error.message).toMatch(
      /^Invalid params for initialize: the session takes \d+ bytes, more than the 409600/,
    );
    expect(await store.get(big.sessionId, ctx())).toBeUndefined();
  });
});

describe("FileSessionStore corrupt files", () => {
  const garbage: [string, (created: SessionRecord) => string, RegExp][] = [
    ["not JSON", () => '{"sessionId": "trunc', /is not JSON$|is not JSON;/],
    ["an array", () => "[1,2]", /is not a session record \(not an object\)/],
    [
      "a record with a wrong field",
      (created) => JSON.stringify({ ...created, version: "1" }),
      /is not a session record \(its version is missing or wrong\)/,
    ],
    [
      "another session's record",
      (created) => JSON.stringify({ ...created, sessionId: randomUUID() }),
      /its sessionId is missing or wrong/,
    ],
  ];

  it.each(garbage)(
    "%s: get is undefined, one warning names the file, the file is set aside, create works again",
    async (_, write, why) => {
      const store = open();
      const created = record();
      await store.create(created, ctx());
      const file = join(directory, `${created.sessionId}.json`);
      const content = write(created);
      await writeFile(file, content);

      expect(await store.get(created.sessionId, ctx())).toBeUndefined();
      expect(await store.get(created.sessionId, ctx())).toBeUndefined();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(file);
      expect(warnings[0]).toMatch(why);
      const names = await readdir(directory);
      const aside = names.find((name) => name.startsWith(`${created.sessionId}.json.corrupt-`));
      expect(aside).toMatch(/^[0-9a-f-]{36}\.json\.corrupt-\d+$/);
      expect(names).not.toContain(`${created.sessionId}.json`);
      expect(await readFile(join(directory, aside as string), "utf8")).toBe(content);

      await store.create(created, ctx());
      expect(await store.get(created.sessionId, ctx())).toEqual(created);
      expect(warnings).toHaveLength(1);
    },
  );

  it("update answers missing, delete false, and create takes the name of a corrupt file, each warning once", async () => {
    const store = open();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    await mkdir(directory, { recursive: true });
    for (const id of ids) await writeFile(join(directory, `${id}.json`), "\u0000garbage");
    const [a, b, c] = ids as [string, string, string];
    expect(await store.update(a, 1, { logLevel: "info" }, true, ctx())).toBe("missing");
    expect(await store.delete(b, ctx())).toBe(false);
    await store.create(record({ sessionId: c }), ctx());
    expect((await store.get(c, ctx()))?.sessionId).toBe(c);
    expect(warnings).toHaveLength(3);
    expect((await readdir(directory)).filter((name) => name.includes(".corrupt-"))).toHaveLength(3);
  });

  it("never throws out of get: when the lock cannot be had, the corrupt file waits for the next reader", async () => {
    const store = open();
    const created = record();
    await store.create(created, ctx());
    await writeFile(join(directory, `${created.sessionId}.json`), "nope");
    await writeFile(join(directory, `${created.sessionId}.lock`), "someone else");
    expect(await store.get(created.sessionId, testContext(200))).toBeUndefined();
    expect(warnings).toEqual([]);
    await rm(join(directory, `${created.sessionId}.lock`));
    expect(await store.get(created.sessionId, ctx())).toBeUndefined();
    expect(warnings).toHaveLength(1);
  });

  it("a file too large to be a record is set aside without being read whole", async () => {
    const store = open();
    const id = randomUUID();
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, `${id}.json`), Buffer.alloc(2 * 1024 * 1024, 0x20));
    expect(await store.get(id, ctx())).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/is larger than 1048576 bytes/)]);
  });
});

describe("FileSessionStore expiry sweep", () => {
  it("deletes expired records (expiresAt ≤ now, in seconds) and keeps live ones, by the injected clock", async () => {
    const store = open();
    const live = record({ expiresAt: T0 / 1000 + 60 });
    const justExpired = record({ expiresAt: T0 / 1000 });
    const longExpired = record({ expiresAt: T0 / 1000 - 86_400 });
    for (const each of [live, justExpired, longExpired]) await store.create(each, ctx());

    expect(await store.sweep()).toEqual({ expired: 2, temporary: 0, locks: 0 });
    expect(await readdir(directory)).toEqual([`${live.sessionId}.json`]);
    expect(await store.get(live.sessionId, ctx())).toEqual(live);

    clock.now = T0 + 59_000;
    expect((await store.sweep()).expired).toBe(0);
    clock.now = T0 + 60_000;
    expect((await store.sweep()).expired).toBe(1);
    expect(await readdir(directory)).toEqual([]);
  });

  it("keeps a record whose expiry was extended, and one a writer holds locked until the next sweep", async () => {
    const store = open();
    const extended = record({ expiresAt: T0 / 1000 - 1 });
    const locked = record({ expiresAt: T0 / 1000 - 1 });
    await store.create(extended, ctx());
    await store.create(locked, ctx());
    expect(await store.update(extended.sessionId, 1, { expiresAt: T0 / 1000 + 60 }, false, ctx())).toBe(
      "updated",
    );
    const lock = join(directory, `${locked.sessionId}.lock`);
    await writeFile(lock, "a writer at work");

    expect((await store.sweep()).expired).toBe(0);
    expect(await store.get(locked.sessionId, ctx())).toEqual(locked);
    await rm(lock);
    expect((await store.sweep()).expired).toBe(1);
    expect(await readdir(directory)).toEqual([`${extended.sessionId}.json`]);
  });

  it("sweeps on first use, in the background, then again only once 10 minutes have passed", async () => {
    // What an earlier run left.
    const expired = [record({ expiresAt: T0 / 1000 - 1 }), record({ expiresAt: T0 / 1000 - 1 })] as const;
    const leave = (left: SessionRecord) =>
      writeFile(join(directory, `${left.sessionId}.json`), JSON.stringify(left));
    await mkdir(directory, { recursive: true });
    await leave(expired[0]);

    // A restart: the new store's first call, whatever it is, starts a sweep it does not wait for.
    const restarted = open();
    expect(await restarted.get(randomUUID(), ctx())).toBeUndefined();
    await vi.waitFor(async () => expect(await readdir(directory)).toEqual([]));

    await leave(expired[1]);
    clock.now = T0 + 9 * 60_000;
    await restarted.get(randomUUID(), ctx());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await readdir(directory)).toEqual([`${expired[1].sessionId}.json`]);

    clock.now = T0 + 10 * 60_000;
    await restarted.get(randomUUID(), ctx());
    await vi.waitFor(async () => expect(await readdir(directory)).toEqual([]));
  });

  it("leaves alone files it does not know (a set-aside corrupt file included)", async () => {
    const store = open();
    await mkdir(directory, { recursive: true });
    const names = ["notes.txt", `${randomUUID()}.json.corrupt-1700000000000`, ".DS_Store"];
    for (const name of names) {
      await writeFile(join(directory, name), "x");
      await age(join(directory, name), 3_600_000);
    }
    await mkdir(join(directory, "subdirectory"));
    expect(await store.sweep()).toEqual({ expired: 0, temporary: 0, locks: 0 });
    expect((await readdir(directory)).sort()).toEqual([...names, "subdirectory"].sort());
    expect(warnings).toEqual([]);
  });
});

describe("FileSessionStore ids", () => {
  const unsafe = [
    "",
    ".",
    "..",
    "../outside",
    "a/b",
    "a\\b",
    "a.json",
    ".hidden",
    "x".repeat(200),
    "abc\n",
    "a\u0000b",
    "é",
  ];

  it("refuses any id that is not a safe file name, and never touches a path outside its directory", async () => {
    const store = open();
    const outside = record({ sessionId: "../outside" });
    await writeFile(join(root, "outside.json"), JSON.stringify(outside));
    const before = await readdir(root);

    for (const id of unsafe) {
      expect(await store.get(id, ctx()), JSON.stringify(id)).toBeUndefined();
      expect(await store.update(id, 1, { logLevel: "info" }, true, ctx())).toBe("missing");
      expect(await store.delete(id, ctx())).toBe(false);
      const error = await failure(store.create(record({ sessionId: id }), ctx()));
      expect(error).toBeInstanceOf(SessionStoreError);
      expect(error.message).toBe("session store create failed: the session id is not a safe file name");
    }
    expect(await readdir(root)).toEqual(before);
    expect(JSON.parse(await readFile(join(root, "outside.json"), "utf8"))).toEqual(outside);
  });
});

describe("FileSessionStore failures", () => {
  it("an unusable directory is a one-line SessionStoreError naming it, for every operation", async () => {
    await writeFile(join(root, "file"), "not a directory");
    const where = join(root, "file", "sessions");
    const store = open(where);
    const operations: [string, () => Promise<unknown>][] = [
      ["create", () => store.create(record(), ctx())],
      ["get", () => store.get(randomUUID(), ctx())],
      ["update", () => store.update(randomUUID(), 1, {}, true, ctx())],
      ["delete", () => store.delete(randomUUID(), ctx())],
    ];
    for (const [operation, run] of operations) {
      const error = await failure(run());
      expect(error).toBeInstanceOf(SessionStoreError);
      expect(error.message).toBe(
        `session store ${operation} failed: ENOTDIR (a part of the path is not a directory) in session directory ${where}`,
      );
    }
  });

  it("a failing read is a SessionStoreError, not a missing session", async () => {
    const store = open();
    const id = randomUUID();
    await mkdir(join(directory, `${id}.json`), { recursive: true });
    const error = await failure(store.get(id, ctx()));
    expect(error).toBeInstanceOf(SessionStoreError);
    expect(error.message).toBe(
      `session store get failed: EISDIR (a directory is in the way) in session directory ${directory}`,
    );
  });
});

describe("FileSessionStore locks", () => {
  it("waits for a held lock no longer than the deadline, or than 3 s, and writes nothing", async () => {
    const store = open();
    const created = record();
    await store.create(created, ctx());
    const lock = join(directory, `${created.sessionId}.lock`);
    await writeFile(lock, "another writer");

    let started = Date.now();
    let error = await failure(
      store.update(created.sessionId, 1, { logLevel: "info" }, true, testContext(300)),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error).toBeInstanceOf(SessionStoreError);
    expect(error.message).toMatch(
      /^session store update failed: (another writer held the session's lock|the request's deadline passed)/,
    );

    await writeFile(lock, "another writer");
    started = Date.now();
    error = await failure(store.delete(created.sessionId, testContext(20_000)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    expect(Date.now() - started).toBeLessThan(4_500);
    expect(error.message).toMatch(
      /^session store delete failed: another writer held the session's lock in .+ for \d+ ms$/,
    );

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    error = await failure(
      store.update(created.sessionId, 1, {}, true, testContext(20_000, { signal: controller.signal })),
    );
    expect(error.message).toBe("session store update failed: the request was cancelled");

    expect(await store.get(created.sessionId, ctx())).toEqual(created);
    await rm(lock);
    expect(await store.update(created.sessionId, 1, { logLevel: "info" }, true, ctx())).toBe("updated");
  });

  it("breaks a lock left by a crashed writer (older than 5 s) at once", async () => {
    const store = open();
    const created = record();
    await store.create(created, ctx());
    const lock = join(directory, `${created.sessionId}.lock`);
    await writeFile(lock, "a dead writer");
    await age(lock, 6_000);
    const started = Date.now();
    expect(await store.update(created.sessionId, 1, { logLevel: "info" }, true, testContext(1_000))).toBe(
      "updated",
    );
    expect(Date.now() - started).toBeLessThan(500);
    expect(await readdir(directory)).toEqual([`${created.sessionId}.json`]);
  });

  it("loses no update among concurrent writers of two stores in one process", async () => {
    const created = record();
    await open().create(created, ctx());
    const writers = [open(), open()];
    const keys = Array.from({ length: 40 }, (_, index) => `k${index}`);
    await Promise.all(
      keys.map(async (key, index) => {
        const store = writers[index % 2] as FileSessionStore;
        for (;;) {
          const current = await store.get(created.sessionId, ctx());
          if (!current) throw new Error("session vanished");
          const appended = current.logLevel === undefined ? key : `${current.logLevel},${key}`;
          const result = await store.update(
            created.sessionId,
            current.version,
            { logLevel: appended },
            true,
            ctx(),
          );
          if (result === "updated") return;
          expect(result).toBe("conflict");
        }
      }),
    );
    const final = await writers[0]?.get(created.sessionId, ctx());
    expect(final?.logLevel?.split(",").sort()).toEqual([...keys].sort());
    expect(final?.version).toBe(1 + keys.length);
    expect(await readdir(directory)).toEqual([`${created.sessionId}.json`]);
  });
});
