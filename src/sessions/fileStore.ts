import { randomBytes, randomUUID } from "node:crypto";
import { link, mkdir, open, opendir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { abortedByDeadline, type RequestContext } from "../context.js";
import { checkStorable } from "./limits.js";
import {
  type SessionChanges,
  SessionDataError,
  type SessionRecord,
  type SessionStore,
  SessionStoreError,
  type UpdateResult,
} from "./store.js";

/** What a file store needs: where its files live, and (for tests) its clock and where its warnings go. */
export interface FileSessionStoreOptions {
  /** The directory of the session files; created, with its parents, on first use. */
  directory: string;
  /** Epoch milliseconds: what expiry (in the sweep) and the interval between sweeps are measured by. */
  now?: () => number;
  /** Told what the store repaired by itself: a corrupt file set aside, a sweep that failed. */
  onWarning?: (message: string) => void;
}

/** What one sweep removed. */
export interface SweepResult {
  /** Session files whose record had expired. */
  expired: number;
  /** Temporary files left by a writer that died between writing and renaming. */
  temporary: number;
  /** Locks left by a writer that died holding them. */
  locks: number;
}

/**
 * The same bound as a DynamoDB item (400 KB), so a session that works under `npm start` also works
 * deployed. Far above what reaches a store: initialize params are refused over 64 KiB at the edge
 * (SESSION_DATA_LIMITS); this only guards the store itself, and every get reads the whole file.
 */
export const FILE_STORE_MAX_RECORD_BYTES = 400 * 1024;

/** A file larger than this was not written by this store: it is set aside as corrupt, never read whole. */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Expired records and debris are swept on the store's first use (in the background: no request waits
 * for it) and then at most once every 10 minutes, started by whichever call comes after that. Expiry is
 * the application's check (an expired record is answered 404 whether its file is there or not): the
 * sweep only keeps the directory from growing over a long `npm start`, so a lazy pace is enough.
 */
const SWEEP_INTERVAL_MS = 10 * 60_000;

/** A writer holds a session's lock for a few milliseconds: one older than this was left by a crash. */
const STALE_LOCK_MS = 5_000;

/** The longest a call waits for another writer's lock (and never past the request's deadline), as DynamoDB calls. */
const LOCK_WAIT_MS = 3_000;

/** A temporary file lives for the milliseconds between its write and its rename: one this old is debris. */
const STALE_TEMP_MS = 60_000;

/** Session ids are UUIDs: anything else with a dot, a slash or a strange character never becomes a path. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

const RECORD_FILE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.json$/;
const TEMP_FILE = /^\.[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.\d+\.[0-9a-f]+\.tmp$/;
const LOCK_FILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.lock$/;
const BROKEN_LOCK_FILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.lock\.[0-9a-f]+\.stale$/;

/** The fields an update may change (anything else in `changes` is ignored, as the DynamoDB store does). */
const CHANGE_FIELDS = [
  "logLevel",
  "expiresAt",
  "updatedAt",
] as const satisfies readonly (keyof SessionChanges)[];

/** A lock this store holds: its file, and the token written in it that tells it from a later one. */
interface Lock {
  path: string;
  token: string;
}

/** A session file as read: its record, or why it is not one. */
type Loaded = { record: SessionRecord } | { problem: string };

/**
 * Sessions as JSON files, one per session (`<directory>/<sessionId>.json`): the default under `npm start`
 * and `invoke local`, so restarting the local server loses no session, and several local processes
 * (serverless offline's workers) share them.
 *
 * - Every write is a temporary file renamed (update) or hard-linked (create, which fails if the id exists)
 *   over the session's file, so a reader sees the old record or the new one, never a part.
 * - Updates and deletes hold the session's lock file (`<sessionId>.lock`, created exclusively), re-read the
 *   record under it and check its version, so concurrent writers, in any process, never lose an update.
 * - A file that is not a session record is set aside (`<sessionId>.json.corrupt-<epoch ms>`) with a
 *   warning, and is no session; other I/O failures are SessionStoreError (503), naming the directory.
 * - Expired records, and what crashed writers left (temporary files, locks), are swept in the background:
 *   on first use, then every SWEEP_INTERVAL_MS. Until then an expired record is returned as it is, as
 *   the other stores do: expiry is the caller's check.
 */
export class FileSessionStore implements SessionStore {
  /** The session files' directory, absolute. */
  readonly directory: string;
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  private ready: Promise<unknown> | undefined;
  private lastSweepAt = Number.NEGATIVE_INFINITY;
  private sweeping: Promise<SweepResult> | undefined;
  /**
   * Ids this store wrote while a sweep ran: that sweep leaves them, even expired, since a request is using
   * them (the contract lets a caller read back an expired record it just wrote). The next sweep decides.
   */
  private readonly writtenDuringSweep = new Set<string>();
  /** Files already warned about that could not be set aside: one warning each, not one per read. */
  private readonly warnedStuck = new Set<string>();

  constructor({
    directory,
    now = Date.now,
    onWarning = (message) => console.warn(message),
  }: FileSessionStoreOptions) {
    this.directory = resolve(directory);
    this.now = now;
    // A warning never fails a request, nor the background sweep.
    this.warn = (message) => {
      try {
        onWarning(message);
      } catch {
        // The listener's failure is its own: the repair it reports is done.
      }
    };
  }

  async create(record: SessionRecord, _context: RequestContext): Promise<void> {
    const id = record.sessionId;
    if (!SAFE_ID.test(id)) {
      throw new SessionStoreError("session store create failed: the session id is not a safe file name");
    }
    checkStorable(record);
    const text = JSON.stringify(toStored(record));
    const bytes = Buffer.byteLength(text);
    if (bytes > FILE_STORE_MAX_RECORD_BYTES) {
      throw new SessionDataError(
        `Invalid params for initialize: the session takes ${bytes} bytes, more than the ${FILE_STORE_MAX_RECORD_BYTES} a session file holds`,
      );
    }
    await this.begin("create");
    this.noteWrite(id);
    const temp = await this.writeTemp(id, text, "create");
    try {
      // A hard link fails if the name exists, in whatever process made it: create-if-absent, atomically.
      for (let attempt = 0; ; attempt++) {
        try {
          await link(temp, this.fileOf(id));
          return;
        } catch (error) {
          if (codeOf(error) !== "EEXIST") throw this.ioError("create", error);
          // A corrupt file under this name is no session: reading it sets it aside, then the name is free.
          if (attempt > 0 || (await this.read(id, "create", undefined)) !== undefined) {
            throw new SessionStoreError("session store create failed: the id exists already");
          }
        }
      }
    } finally {
      await removeQuietly(temp);
    }
  }

  async get(sessionId: string, context: RequestContext): Promise<SessionRecord | undefined> {
    if (!SAFE_ID.test(sessionId)) return undefined;
    await this.begin("get");
    return this.read(sessionId, "get", context);
  }

  async update(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
    context: RequestContext,
  ): Promise<UpdateResult> {
    if (!SAFE_ID.test(sessionId)) return "missing";
    await this.begin("update");
    const lock = await this.lock(sessionId, "update", context);
    try {
      const current = await this.read(sessionId, "update", lock);
      if (!current) return "missing";
      if (current.version !== expectedVersion) return "conflict";
      const updated: SessionRecord = { ...current, version: current.version + (bumpVersion ? 1 : 0) };
      for (const field of CHANGE_FIELDS) {
        if (Object.hasOwn(changes, field)) Object.assign(updated, { [field]: changes[field] });
      }
      this.noteWrite(sessionId);
      const temp = await this.writeTemp(sessionId, JSON.stringify(toStored(updated)), "update");
      try {
        await this.checkHeld(lock, "update");
        await rename(temp, this.fileOf(sessionId));
      } catch (error) {
        throw this.ioError("update", error);
      } finally {
        await removeQuietly(temp);
      }
      return "updated";
    } finally {
      await this.unlock(lock);
    }
  }

  async delete(sessionId: string, context: RequestContext): Promise<boolean> {
    if (!SAFE_ID.test(sessionId)) return false;
    await this.begin("delete");
    const lock = await this.lock(sessionId, "delete", context);
    try {
      if (!(await this.read(sessionId, "delete", lock))) return false;
      await this.checkHeld(lock, "delete");
      return await unlinkIfThere(this.fileOf(sessionId)).catch((error: unknown) => {
        throw this.ioError("delete", error);
      });
    } finally {
      await this.unlock(lock);
    }
  }

  /**
   * Removes expired session files, stale temporary files and stale locks; corrupt files met on the way are
   * set aside. The store runs this by itself (see SWEEP_INTERVAL_MS); a call runs one now, after the one
   * under way if any. Never rejects: what fails is reported through `onWarning`.
   */
  async sweep(): Promise<SweepResult> {
    while (this.sweeping) await this.sweeping;
    return this.startSweep();
  }

  private startSweep(): Promise<SweepResult> {
    this.lastSweepAt = this.now();
    const run = this.sweepFiles().finally(() => {
      this.sweeping = undefined;
      this.writtenDuringSweep.clear();
    });
    this.sweeping = run;
    return run;
  }

  /** Reads the directory entry by entry (a large one is never held whole), each file a few awaits. */
  private async sweepFiles(): Promise<SweepResult> {
    const result: SweepResult = { expired: 0, temporary: 0, locks: 0 };
    let failure: string | undefined;
    try {
      for await (const entry of await opendir(this.directory)) {
        try {
          await this.sweepFile(entry.name, result);
        } catch (error) {
          failure ??= describeError(error);
        }
      }
    } catch (error) {
      if (codeOf(error) !== "ENOENT") failure ??= describeError(error);
    }
    if (failure !== undefined) {
      this.warn(`session store sweep of ${this.directory} left files unchecked: ${failure}`);
    }
    return result;
  }

  private async sweepFile(name: string, result: SweepResult): Promise<void> {
    const recordId = RECORD_FILE.exec(name)?.[1];
    if (recordId !== undefined) {
      if (this.writtenDuringSweep.has(recordId)) return;
      // Reading sets a corrupt file aside; a live record costs nothing more.
      const seen = await this.read(recordId, "sweep", undefined);
      if (!seen || !this.isExpired(seen)) return;
      const lock = await this.tryLock(recordId, "sweep");
      if (!lock) return; // in use: the next sweep decides
      try {
        // Re-read under the lock: an update may have extended it since.
        const current = await this.read(recordId, "sweep", lock);
        if (current && this.isExpired(current) && !this.writtenDuringSweep.has(recordId)) {
          await this.checkHeld(lock, "sweep");
          if (await unlinkIfThere(this.fileOf(recordId))) result.expired++;
        }
      } finally {
        await this.unlock(lock);
      }
    } else if (TEMP_FILE.test(name) || BROKEN_LOCK_FILE.test(name)) {
      const path = join(this.directory, name);
      const modified = await stat(path).then(
        (stats) => stats.mtimeMs,
        () => Date.now(), // gone already
      );
      const age = Date.now() - modified;
      const staleAfter = TEMP_FILE.test(name) ? STALE_TEMP_MS : STALE_LOCK_MS;
      if (age > staleAfter && (await unlinkIfThere(path)) && TEMP_FILE.test(name)) result.temporary++;
    } else if (LOCK_FILE.test(name)) {
      if ((await this.breakIfStale(join(this.directory, name), "sweep")) === "broken") result.locks++;
    }
  }

  private isExpired(record: SessionRecord): boolean {
    return record.expiresAt <= this.now() / 1000;
  }

  /** What every call does first: make the directory (once), and start a sweep when one is due. */
  private async begin(operation: string): Promise<void> {
    await this.directoryReady(operation);
    if (!this.sweeping && this.now() - this.lastSweepAt >= SWEEP_INTERVAL_MS) void this.startSweep();
  }

  private async directoryReady(operation: string): Promise<void> {
    // Owner only: a session names its principal and client.
    this.ready ??= mkdir(this.directory, { recursive: true, mode: 0o700 });
    try {
      await this.ready;
    } catch (error) {
      this.ready = undefined;
      throw this.ioError(operation, error);
    }
  }

  private noteWrite(sessionId: string): void {
    if (this.sweeping) this.writtenDuringSweep.add(sessionId);
  }

  private fileOf(sessionId: string): string {
    return join(this.directory, `${sessionId}.json`);
  }

  /**
   * The session's record, or undefined when there is none. A corrupt file is set aside under the session's
   * lock (`held`, or taken here within the context; a sweep's `undefined` tries once): re-read under the
   * lock first, since a file is only replaced by a lock holder, never by a reader that read it earlier.
   */
  private async read(
    sessionId: string,
    operation: string,
    held: Lock | RequestContext | undefined,
  ): Promise<SessionRecord | undefined> {
    const loaded = await this.load(sessionId, operation);
    if (!loaded || "record" in loaded) return loaded?.record;
    if (held !== undefined && "token" in held) {
      await this.setAside(sessionId, loaded.problem);
      return undefined;
    }
    let lock: Lock | undefined;
    try {
      lock =
        held === undefined
          ? await this.tryLock(sessionId, operation)
          : await this.lock(sessionId, operation, held);
    } catch {
      // The corrupt file stays for the next reader; it is no session either way.
    }
    if (!lock) return undefined;
    try {
      return await this.read(sessionId, operation, lock);
    } finally {
      await this.unlock(lock);
    }
  }

  private async load(sessionId: string, operation: string): Promise<Loaded | undefined> {
    let text: string;
    try {
      const handle = await open(this.fileOf(sessionId), "r");
      try {
        if ((await handle.stat()).size > MAX_FILE_BYTES)
          return { problem: `larger than ${MAX_FILE_BYTES} bytes` };
        text = await handle.readFile("utf8");
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (codeOf(error) === "ENOENT") return undefined;
      throw this.ioError(operation, error);
    }
    return parseRecord(text, sessionId);
  }

  /** Renames a corrupt session file out of the way (kept for a look, never read again); warns once. */
  private async setAside(sessionId: string, problem: string): Promise<void> {
    const file = this.fileOf(sessionId);
    const aside = `${file}.corrupt-${Date.now()}`;
    try {
      await rename(file, aside);
      this.warnedStuck.delete(file);
      this.warn(`session store: ${file} is ${problem}; moved aside to ${aside}, the session is gone`);
    } catch (error) {
      if (codeOf(error) === "ENOENT" || this.warnedStuck.has(file)) return;
      this.warnedStuck.add(file);
      this.warn(
        `session store: ${file} is ${problem} and could not be moved aside (${describeError(error)})`,
      );
    }
  }

  /** Writes `text` to a new temporary file next to the session's, for a rename or link over it. */
  private async writeTemp(sessionId: string, text: string, operation: string): Promise<string> {
    const temp = join(this.directory, `.${sessionId}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
    for (let attempt = 0; ; attempt++) {
      try {
        await writeFile(temp, text, { flag: "wx", mode: 0o600 });
        return temp;
      } catch (error) {
        await removeQuietly(temp);
        // The directory was removed under a running server: make it again, once.
        if (codeOf(error) !== "ENOENT" || attempt > 0) throw this.ioError(operation, error);
        this.ready = undefined;
        await this.directoryReady(operation);
      }
    }
  }

  /** Takes the session's lock, waiting for another writer at most LOCK_WAIT_MS and never past the deadline. */
  private async lock(sessionId: string, operation: string, context: RequestContext): Promise<Lock> {
    const started = Date.now();
    const giveUpAt = Math.min(context.deadlineAt, started + LOCK_WAIT_MS);
    for (let delay = 1; ; delay = Math.min(delay * 2, 20)) {
      const lock = await this.tryLock(sessionId, operation);
      if (lock) return lock;
      const left = giveUpAt - Date.now();
      if (left <= 0) {
        throw new SessionStoreError(
          `session store ${operation} failed: another writer held the session's lock in ${this.directory} for ${Date.now() - started} ms`,
        );
      }
      try {
        // Jittered, so two waiting processes do not retry in step.
        await sleep(Math.min(left, delay * (0.5 + Math.random())), undefined, { signal: context.signal });
      } catch {
        throw new SessionStoreError(
          abortedByDeadline(context.signal)
            ? `session store ${operation} failed: the request's deadline passed while waiting for the session's lock`
            : `session store ${operation} failed: the request was cancelled`,
        );
      }
    }
  }

  /** One attempt at the lock (breaking a stale one first): undefined while another writer holds it. */
  private async tryLock(sessionId: string, operation: string): Promise<Lock | undefined> {
    const path = join(this.directory, `${sessionId}.lock`);
    const token = `${process.pid} ${randomUUID()}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(path, "wx", 0o600);
        try {
          await handle.writeFile(token);
        } catch (error) {
          await handle.close();
          await removeQuietly(path);
          throw error;
        }
        await handle.close();
        return { path, token };
      } catch (error) {
        const code = codeOf(error);
        if (code === "ENOENT") {
          this.ready = undefined;
          await this.directoryReady(operation);
        } else if (code !== "EEXIST") {
          throw this.ioError(operation, error);
        } else if ((await this.breakIfStale(path, operation)) === "held") {
          return undefined;
        }
      }
    }
    return undefined;
  }

  /**
   * Removes the lock at `path` if it is older than STALE_LOCK_MS; says whether it is held still. Two processes may
   * find the same stale lock: each moves it to a name of its own (only one rename can take that file) and
   * checks it moved the file it judged stale, not a fresh lock taken meanwhile, which it puts back.
   */
  private async breakIfStale(path: string, operation: string): Promise<"held" | "gone" | "broken"> {
    try {
      const seen = await stat(path, { bigint: true });
      if (Date.now() - Number(seen.mtimeMs) < STALE_LOCK_MS) return "held";
      const content = await readFile(path, "utf8");
      const aside = `${path}.${randomBytes(6).toString("hex")}.stale`;
      await rename(path, aside);
      try {
        const moved = await stat(aside, { bigint: true });
        if (
          moved.ino === seen.ino &&
          moved.mtimeNs === seen.mtimeNs &&
          (await readFile(aside, "utf8")) === content
        ) {
          return "broken";
        }
        await link(aside, path).catch(() => undefined);
        return "held";
      } finally {
        await removeQuietly(aside);
      }
    } catch (error) {
      if (codeOf(error) === "ENOENT") return "gone";
      throw this.ioError(operation, error);
    }
  }

  /**
   * Throws unless `lock` is still this store's: a writer stalled past STALE_LOCK_MS may have lost it to a
   * breaker, and must then write nothing.
   */
  private async checkHeld(lock: Lock, operation: string): Promise<void> {
    const content = await readFile(lock.path, "utf8").catch(() => undefined);
    if (content !== lock.token) {
      throw new SessionStoreError(
        `session store ${operation} failed: the session's lock in ${this.directory} was taken over (stalled over ${STALE_LOCK_MS} ms); nothing written`,
      );
    }
  }

  private async unlock(lock: Lock): Promise<void> {
    try {
      if ((await readFile(lock.path, "utf8")) === lock.token) await unlink(lock.path);
    } catch {
      // Gone or unreadable: a lock left behind is broken once stale.
    }
  }

  /** A store failure as one line: the operation, the error's code and the directory, never a stack. */
  private ioError(operation: string, error: unknown): SessionStoreError {
    if (error instanceof SessionStoreError) return error;
    return new SessionStoreError(
      `session store ${operation} failed: ${describeError(error)} in session directory ${this.directory}`,
    );
  }
}

/** The record as written: its fields in a fixed order, nothing else the object may carry. */
function toStored(record: SessionRecord): SessionRecord {
  return {
    sessionId: record.sessionId,
    initializeParams: record.initializeParams,
    protocolVersion: record.protocolVersion,
    logLevel: record.logLevel,
    principal: record.principal,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    expiresAt: record.expiresAt,
    version: record.version,
  };
}

/** The record in a session file's text, or what is wrong with it. */
function parseRecord(text: string, sessionId: string): Loaded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: "not JSON" };
  }
  if (!isObject(value)) return { problem: "not a session record (not an object)" };
  const { initializeParams, protocolVersion, logLevel, principal, createdAt, updatedAt, expiresAt, version } =
    value;
  const wrong =
    value.sessionId !== sessionId
      ? "sessionId"
      : !isObject(initializeParams)
        ? "initializeParams"
        : typeof protocolVersion !== "string"
          ? "protocolVersion"
          : !isOptionalString(logLevel)
            ? "logLevel"
            : !isOptionalString(principal)
              ? "principal"
              : !isFiniteNumber(createdAt)
                ? "createdAt"
                : !isFiniteNumber(updatedAt)
                  ? "updatedAt"
                  : !isFiniteNumber(expiresAt)
                    ? "expiresAt"
                    : !Number.isSafeInteger(version)
                      ? "version"
                      : undefined;
  if (wrong !== undefined) return { problem: `not a session record (its ${wrong} is missing or wrong)` };
  return {
    record: {
      sessionId,
      initializeParams: initializeParams as Record<string, unknown>,
      protocolVersion: protocolVersion as string,
      logLevel: logLevel as string | undefined,
      principal: principal as string | undefined,
      createdAt: createdAt as number,
      updatedAt: updatedAt as number,
      expiresAt: expiresAt as number,
      version: version as number,
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

function isFiniteNumber(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value);
}

function codeOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** What the usual failures mean, for a message a person can act on. */
const MEANINGS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "a directory is in the way",
  EIO: "I/O error",
};

function describeError(error: unknown): string {
  if (error instanceof SessionStoreError) return error.message;
  const code = codeOf(error);
  if (code === undefined) return error instanceof Error ? error.name : "UnknownError";
  const meaning = MEANINGS[code];
  return meaning === undefined ? code : `${code} (${meaning})`;
}

/** Removes `path`; false when it was not there. */
async function unlinkIfThere(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if (codeOf(error) === "ENOENT") return false;
    throw error;
  }
}

/** Removes a file of this store's own (a temporary file, a moved lock) if it is there; a sweep retries failures. */
async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}
