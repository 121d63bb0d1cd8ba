import { randomUUID } from "node:crypto";
import {
  chmod,
  chown,
  lstat,
  lutimes,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  FILE_STORE_MAX_RECORD_BYTES,
  FileSessionStore,
  type FileStoreLimits,
} from "../../src/sessions/fileStore.js";
import { SessionDataError, type SessionRecord, SessionStoreError } from "../../src/sessions/store.js";
import { testContext } from "../support/context.js";
import { runClockUntilSettled, useFakeClock, watch } from "../support/fakeClock.js";
import { mkfifo, releaseFifos } from "../support/fifos.js";

// The lock's waits sleep through node:timers/promises: on the global timers, a fake clock moves them.
vi.mock("node:timers/promises", async (original) =>
  (await import("../support/fakeClock.js")).timersPromisesOnGlobalTimers(await original<object>()),
);

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

/**
 * `promise`, or a rejection naming `what` once `ms` have passed: a call that would never answer (a read
 * waiting on a FIFO) fails its test by this generous bound rather than hang the suite.
 */
async function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
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
function open(at = directory, limits: Partial<FileStoreLimits> = {}): FileSessionStore {
  const store = new FileSessionStore({
    directory: at,
    now: () => clock.now,
    onWarning: (message) => warnings.push(message),
    limits,
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
    await mkdir(directory, { recursive: true, mode: 0o700 });
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
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await writeFile(join(directory, `${id}.json`), Buffer.alloc(2 * 1024 * 1024, 0x20));
    expect(await store.get(id, ctx())).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/is larger than 1048576 bytes/)]);
  });
});

describe("FileSessionStore reads nothing but its own regular files", () => {
  /** What may sit under a session file's name, made at `path`, and how to tell it once set aside. */
  const intruders: [
    string,
    (path: string, id: string) => Promise<void>,
    RegExp,
    (aside: string) => Promise<boolean>,
  ][] = [
    [
      "a symbolic link to /dev/zero",
      (path) => symlink("/dev/zero", path),
      /is a symbolic link;/,
      async (aside) => (await readlink(aside)) === "/dev/zero",
    ],
    [
      "a symbolic link to a session record outside the directory",
      async (path, id) => {
        const outside = join(root, "elsewhere.json");
        await writeFile(outside, JSON.stringify(record({ sessionId: id, principal: undefined })));
        await symlink(outside, path);
      },
      /is a symbolic link;/,
      async (aside) => (await readlink(aside)) === join(root, "elsewhere.json"),
    ],
    ["a FIFO", mkfifo, /is not a regular file \(a FIFO\);/, async (aside) => (await lstat(aside)).isFIFO()],
    [
      "a directory",
      (path) => mkdir(path),
      /is not a regular file \(a directory\);/,
      async (aside) => (await lstat(aside)).isDirectory(),
    ],
  ];

  it.each(intruders)(
    "%s under a session's name: get is undefined at once, one warning says what it is, it is set aside itself, create takes the name",
    async (_, make, why, isIt) => {
      const store = open();
      const id = randomUUID();
      const path = join(directory, `${id}.json`);
      await mkdir(directory, { recursive: true, mode: 0o700 });
      await make(path, id);
      try {
        expect(await within(store.get(id, ctx()), "get")).toBeUndefined();
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(path);
        expect(warnings[0]).toMatch(why);
        const aside = (await readdir(directory)).find((name) => name.startsWith(`${id}.json.corrupt-`));
        expect(aside).toBeDefined();
        expect(await isIt(join(directory, aside as string))).toBe(true);

        const created = record({ sessionId: id });
        await store.create(created, ctx());
        expect(await store.get(id, ctx())).toEqual(created);
      } finally {
        await releaseFifos([path]);
      }
    },
  );

  it("FIFOs under sessions' names, as many as Node has I/O threads: every get answers, and no thread is left waiting on one", async () => {
    const store = open();
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const ids = Array.from({ length: threads }, () => randomUUID());
    const fifos = ids.map((id) => join(directory, `${id}.json`));
    for (const fifo of fifos) await mkfifo(fifo);
    try {
      const answers = await within(Promise.all(ids.map((id) => store.get(id, ctx()))), "the gets");
      expect(answers).toEqual(ids.map(() => undefined));
      // Every fs (and DNS) call of the process goes through those threads: one held by a FIFO's open
      // would leave this waiting.
      expect((await within(stat(root), "a stat after the gets")).isDirectory()).toBe(true);
      expect(warnings.filter((warning) => /is not a regular file \(a FIFO\)/.test(warning))).toHaveLength(
        threads,
      );
    } finally {
      await releaseFifos(fifos);
    }
  });

  it.each([
    ["a link to /dev/zero", (path: string) => symlink("/dev/zero", path)],
    ["a FIFO", mkfifo],
  ])(
    "a lock left as %s (older than 5 s) is broken without being followed or waited on: the update goes through",
    async (_, make) => {
      const store = open();
      const created = record();
      await store.create(created, ctx());
      const lock = join(directory, `${created.sessionId}.lock`);
      await make(lock);
      const then = new Date(Date.now() - 10_000);
      await lutimes(lock, then, then);
      try {
        const updated = store.update(created.sessionId, 1, { logLevel: "info" }, true, ctx());
        expect(await within(updated, "the update")).toBe("updated");
        expect(await store.get(created.sessionId, ctx())).toEqual({
          ...created,
          logLevel: "info",
          version: 2,
        });
        expect(await readdir(directory)).toEqual([`${created.sessionId}.json`]);
      } finally {
        await releaseFifos([lock]);
      }
    },
  );
});

describe("FileSessionStore's directory", () => {
  it.each([
    ["0777", 0o777],
    ["0770", 0o770],
    ["1777, as /tmp", 0o1777],
  ])(
    "one others may write, there before the store (mode %s), is refused: every call 503 saying why and what to do, one warning, nothing in it read, written or removed; made its owner's alone, it serves at once",
    async (_, mode) => {
      await mkdir(directory, { recursive: true });
      await chmod(directory, mode);
      // What another user left there: a record of their making, expired (a sweep would remove it).
      const planted = record({ principal: undefined, expiresAt: T0 / 1000 - 1 });
      const plantedFile = `${planted.sessionId}.json`;
      await writeFile(join(directory, plantedFile), JSON.stringify(planted));
      const store = open();
      const why = `session directory ${directory} may be written by other users (mode ${mode.toString(8).padStart(4, "0")}): make it its owner's alone (chmod 700) or set SESSION_DIR to another directory`;
      const operations: [string, () => Promise<unknown>][] = [
        ["get", () => store.get(planted.sessionId, ctx())],
        ["create", () => store.create(record(), ctx())],
        ["update", () => store.update(planted.sessionId, 1, { logLevel: "info" }, true, ctx())],
        ["delete", () => store.delete(planted.sessionId, ctx())],
      ];
      for (const [operation, run] of operations) {
        const error = await failure(run());
        expect(error).toBeInstanceOf(SessionStoreError);
        expect(error.message).toBe(`session store ${operation} failed: ${why}`);
      }
      expect(await store.sweep()).toEqual({ expired: 0, temporary: 0, locks: 0 });
      expect(await readdir(directory)).toEqual([plantedFile]);
      expect((await stat(directory)).mode & 0o7777).toBe(mode);
      expect(warnings).toEqual([`session store: ${why}; until then every session request is answered 503`]);

      await chmod(directory, 0o700);
      expect(await store.get(planted.sessionId, ctx())).toEqual(planted);
      const created = record();
      await store.create(created, ctx());
      expect(await store.get(created.sessionId, ctx())).toEqual(created);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    "one that belongs to another user is refused, whatever its mode (run as root: a directory given to uid 65534)",
    async () => {
      await mkdir(directory, { recursive: true, mode: 0o755 });
      await chown(directory, 65534, 65534);
      const store = open();
      const error = await failure(store.create(record(), ctx()));
      expect(error).toBeInstanceOf(SessionStoreError);
      expect(error.message).toBe(
        `session store create failed: session directory ${directory} belongs to another user (uid 65534, this process runs as 0): set SESSION_DIR to a directory of this user's own`,
      );
      expect(await readdir(directory)).toEqual([]);
      expect(warnings).toEqual([expect.stringMatching(/belongs to another user/)]);
    },
  );
});

describe("FileSessionStore limits", () => {
  /** The session files in the directory, by id, and their bytes. */
  async function held(): Promise<{ ids: string[]; bytes: number }> {
    const names = (await readdir(directory)).filter((name) => name.endsWith(".json"));
    const sizes = await Promise.all(names.map(async (name) => (await stat(join(directory, name))).size));
    return {
      ids: names.map((name) => name.slice(0, -".json".length)).sort(),
      bytes: sizes.reduce((a, b) => a + b, 0),
    };
  }

  const sorted = (...records: SessionRecord[]) => records.map((each) => each.sessionId).sort();

  /** Moves the clock to `ms` after T0 and creates a record there, stamped as the manager stamps one. */
  async function createAt(store: FileSessionStore, ms: number): Promise<SessionRecord> {
    clock.now = T0 + ms;
    const created = record({ createdAt: clock.now, updatedAt: clock.now });
    await store.create(created, ctx());
    return created;
  }

  it("full in sessions: expired ones go first, even recently used; then the least recently created, read or updated; an evicted one is unknown", async () => {
    const store = open(directory, { maxSessions: 3 });
    const older = record();
    const newer = record();
    const expiring = record({ expiresAt: T0 / 1000 + 10 });
    await store.create(older, ctx());
    clock.now = T0 + 1_000;
    await store.create(newer, ctx());
    clock.now = T0 + 2_000;
    await store.create(expiring, ctx());

    // The expiring one has expired: it goes, though both live ones were used before it.
    clock.now = T0 + 20_000;
    const fourth = record();
    await store.create(fourth, ctx());
    expect((await held()).ids).toEqual(sorted(older, newer, fourth));
    expect(await store.get(expiring.sessionId, ctx())).toBeUndefined();

    // Read: `older` is used again, so `newer` is now the least recently used.
    clock.now = T0 + 21_000;
    expect(await store.get(older.sessionId, ctx())).toEqual(older);
    clock.now = T0 + 22_000;
    const fifth = record();
    await store.create(fifth, ctx());
    expect((await held()).ids).toEqual(sorted(older, fourth, fifth));
    expect(await store.get(newer.sessionId, ctx())).toBeUndefined();

    // Updated: `fourth` is used again, so `older` (read at 21 s) goes next.
    clock.now = T0 + 23_000;
    expect(await store.update(fourth.sessionId, 1, { logLevel: "info" }, true, ctx())).toBe("updated");
    clock.now = T0 + 24_000;
    const sixth = record();
    await store.create(sixth, ctx());
    expect((await held()).ids).toEqual(sorted(fourth, fifth, sixth));
    expect(warnings).toEqual([]);
  });

  it("full in bytes: a larger session removes as many of the least recently used as it needs; one over the whole limit is SessionDataError", async () => {
    const sized = (name: string) =>
      record({ initializeParams: { clientInfo: { name: name.padEnd(800, "."), version: "1" } } });
    const small = [sized("a"), sized("b"), sized("c"), sized("d")];
    const oneSize = Buffer.byteLength(JSON.stringify(small[0]));
    const store = open(directory, { maxBytes: 4 * oneSize + 100 });
    for (const [index, each] of small.entries()) {
      clock.now = T0 + index * 1_000;
      await store.create(each, ctx());
    }
    expect((await held()).ids).toEqual(sorted(...small));

    clock.now = T0 + 10_000;
    const large = record({
      initializeParams: { clientInfo: { name: "L".repeat(2 * oneSize), version: "1" } },
    });
    await store.create(large, ctx());
    const after = await held();
    expect(after.ids).toEqual(sorted(small[3] as SessionRecord, large));
    expect(after.bytes).toBeLessThanOrEqual(4 * oneSize + 100);

    const tooLarge = record({
      initializeParams: { clientInfo: { name: "x".repeat(5 * oneSize), version: "1" } },
    });
    const error = await failure(store.create(tooLarge, ctx()));
    expect(error).toBeInstanceOf(SessionDataError);
    expect(error.message).toMatch(
      new RegExp(
        `^Invalid params for initialize: the session takes \\d+ bytes, more than the ${4 * oneSize + 100} a session file holds$`,
      ),
    );
    expect((await held()).ids).toEqual(after.ids);
  });

  it("a restart counts what the earlier run left before its first create: the limit holds across restarts", async () => {
    const first = open(directory, { maxSessions: 3 });
    const left = [await createAt(first, 0), await createAt(first, 1_000), await createAt(first, 2_000)];
    const restarted = open(directory, { maxSessions: 3 });
    const next = await createAt(restarted, 10_000);
    // The earliest written goes: what a restarted store knows of a session's use is its last write.
    expect((await held()).ids).toEqual(sorted(left[1] as SessionRecord, left[2] as SessionRecord, next));
  });

  it("two stores sharing the directory: one that finds it full counts it again (a minute after its last count) and makes room among the other's sessions too", async () => {
    const a = open(directory, { maxSessions: 3 });
    const b = open(directory, { maxSessions: 3 });
    const ofA = [await createAt(a, 0), await createAt(a, 1_000), await createAt(a, 2_000)];
    // b counts the directory at its first create: full, it removes a's least recently used.
    const ofB = await createAt(b, 10_000);
    expect((await held()).ids).toEqual(sorted(ofA[1] as SessionRecord, ofA[2] as SessionRecord, ofB));

    // a, a minute on, finds itself full: it counts again, sees b's session, and removes one for its own.
    const next = await createAt(a, 70_000);
    expect((await held()).ids).toEqual(sorted(ofA[2] as SessionRecord, ofB, next));
  });

  it("passes over a session a writer holds (its lock taken); when every one is held, create is 503 and writes nothing", async () => {
    const store = open(directory, { maxSessions: 2 });
    const first = record();
    const second = record();
    await store.create(first, ctx());
    clock.now = T0 + 1_000;
    await store.create(second, ctx());
    await writeFile(join(directory, `${first.sessionId}.lock`), "a writer at work");

    clock.now = T0 + 2_000;
    const third = record();
    await store.create(third, ctx());
    expect((await held()).ids).toEqual(sorted(first, third));

    await writeFile(join(directory, `${third.sessionId}.lock`), "another writer at work");
    const fourth = record();
    const error = await failure(store.create(fourth, ctx()));
    expect(error).toBeInstanceOf(SessionStoreError);
    expect(error.message).toBe(
      `session store create failed: the session directory ${directory} holds 2 sessions in ${(await held()).bytes} bytes, its limit, and every one is being written`,
    );
    expect((await held()).ids).toEqual(sorted(first, third));
    expect((await readdir(directory)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
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
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await leave(expired[0]);

    // A restart: the new store's first call, whatever it is, starts a sweep it does not wait for.
    const restarted = open();
    expect(await restarted.get(randomUUID(), ctx())).toBeUndefined();
    await vi.waitFor(async () => expect(await readdir(directory)).toEqual([]), { timeout: 20_000 });

    await leave(expired[1]);
    clock.now = T0 + 9 * 60_000;
    await restarted.get(randomUUID(), ctx());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await readdir(directory)).toEqual([`${expired[1].sessionId}.json`]);

    clock.now = T0 + 10 * 60_000;
    await restarted.get(randomUUID(), ctx());
    await vi.waitFor(async () => expect(await readdir(directory)).toEqual([]), { timeout: 20_000 });
  });

  it("leaves alone files it does not know (a set-aside corrupt file included)", async () => {
    const store = open();
    await mkdir(directory, { recursive: true, mode: 0o700 });
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
    // A session file's path one name too long for the system: the directory is made, the read fails
    // (ENAMETOOLONG, whoever runs the test; permissions would not stop root).
    // Linux's PATH_MAX is 4096 with its NUL: a directory of 4,070 characters, a session file of 4,112.
    let where = root;
    while (where.length < 4_070) {
      where = join(where, "d".repeat(Math.max(1, Math.min(200, 4_069 - where.length))));
    }
    const store = open(where);
    const error = await failure(store.get(randomUUID(), ctx()));
    expect(error).toBeInstanceOf(SessionStoreError);
    expect(error.message).toBe(
      `session store get failed: ENAMETOOLONG (the path is too long) in session directory ${where}`,
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
    const held = (message: string) => new RegExp(`^session store ${message}$`);

    // No time left: the lock is tried once, not waited for.
    let error = await failure(store.update(created.sessionId, 1, { logLevel: "info" }, true, testContext(0)));
    expect(error).toBeInstanceOf(SessionStoreError);
    expect(error.message).toMatch(
      held("update failed: another writer held the session's lock in .+ for \\d+ ms"),
    );

    // On a clock moved by hand (the lock polled on the real file system between its waits): given up
    // at the deadline when it comes first, at 3 s otherwise, whichever way the wait ends.
    for (const [deadlineMs, endsAfter] of [
      [300, 300],
      [600_000, 3_000],
    ] as const) {
      useFakeClock();
      try {
        // The lock is fresh on this clock too (one older than 5 s is a crashed writer's, broken).
        await utimes(lock, new Date(), new Date());
        const startedAt = Date.now();
        let endedAt: number | undefined;
        const waited = watch(
          store.delete(created.sessionId, testContext(deadlineMs)).finally(() => {
            endedAt = Date.now();
          }),
        );
        await runClockUntilSettled(waited);
        expect(endedAt === undefined ? undefined : endedAt - startedAt, String(deadlineMs)).toBe(endsAfter);
        error = await failure(waited.promise);
        expect(error).toBeInstanceOf(SessionStoreError);
        expect(error.message).toMatch(
          endsAfter === 3_000
            ? held("delete failed: another writer held the session's lock in .+ for 3000 ms")
            : held(
                "delete failed: (another writer held the session's lock in .+ for 300 ms|the request's deadline passed while waiting for the session's lock)",
              ),
        );
      } finally {
        vi.useRealTimers();
      }
    }

    // A cancellation ends the wait (the deadline ten minutes away, so only it or the 3 s cap can).
    const controller = new AbortController();
    const cancelled = failure(
      store.update(created.sessionId, 1, {}, true, testContext(600_000, { signal: controller.signal })),
    );
    controller.abort();
    expect((await cancelled).message).toBe("session store update failed: the request was cancelled");

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
    // With no time left to wait for a lock: the stale one is broken on the first try.
    expect(await store.update(created.sessionId, 1, { logLevel: "info" }, true, testContext(0))).toBe(
      "updated",
    );
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
