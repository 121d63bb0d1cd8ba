import { randomBytes } from "node:crypto";
import { link, opendir, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { RequestContext } from "../context.js";
import { BaseSessionStore, type RecordLimit } from "./baseStore.js";
import {
  codeOf,
  describeError,
  type FileRead,
  readRegularFile,
  removeQuietly,
  unlinkIfThere,
} from "./fileAccess.js";
import {
  DirectoryBudget,
  FILE_STORE_LIMITS,
  FILE_STORE_MAX_RECORD_BYTES,
  type FileStoreLimits,
} from "./fileBudget.js";
import { isDebris, removeStaleDebris } from "./fileDebris.js";
import { type Lock, SessionLocks } from "./fileLocks.js";
import { applyChanges, hasExpired, parseRecord, type Serialised, serialise } from "./record.js";
import { checkSessionDirectory, DirectoryGate } from "./sessionDirectory.js";
import {
  type SessionChanges,
  type SessionRecord,
  type SessionStore,
  SessionStoreError,
  type UpdateResult,
} from "./store.js";

export { FILE_STORE_LIMITS, FILE_STORE_MAX_RECORD_BYTES, type FileStoreLimits } from "./fileBudget.js";

/** What a file store needs: where its files live, and (for tests) its clock, its limits and where its warnings go. */
export interface FileSessionStoreOptions {
  /** The directory of the session files; created, with its parents, on first use. */
  directory: string;
  /** Epoch milliseconds: what expiry (in the sweep) and the interval between sweeps are measured by. */
  now?: () => number;
  /** Told what the store repaired by itself (a corrupt file set aside, a sweep that failed), or refuses to use. */
  onWarning?: (message: string) => void;
  /** How many sessions and bytes the directory holds: FILE_STORE_LIMITS unless told. */
  limits?: Partial<FileStoreLimits>;
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

/** A file larger than this was not written by this store: it is set aside as corrupt, never read whole. */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Expired records and debris are swept on the store's first use (in the background: no request waits
 * for it) and then at most once every 10 minutes, started by whichever call comes after that. Expiry is
 * the application's check (an expired record is answered 404 whether its file is there or not): the
 * sweep only keeps the directory from growing over a long `npm start`, so a lazy pace is enough.
 */
const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * A create that finds the directory full counts it again first (a sweep) if the last count is older than
 * this: other processes sharing the directory may have added or removed files since. At most once a
 * minute, so a flood of creates at the limit costs one count a minute, not one each.
 */
const RECOUNT_INTERVAL_MS = 60_000;

const RECORD_FILE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.json$/;
const LOCK_FILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.lock$/;

/** A session file as read: its record and size, or why it is not one. */
type Loaded = { record: SessionRecord; bytes: number } | { problem: string };

/**
 * Sessions as JSON files, one per session (`<directory>/<sessionId>.json`): the default under `npm start`
 * and `invoke local`, so restarting the local server loses no session, and several local processes
 * (serverless offline's workers) share them.
 *
 * - Every write is a temporary file renamed (update) or hard-linked (create, which fails if the id exists)
 *   over the session's file, so a reader sees the old record or the new one, never a part.
 * - Updates and deletes hold the session's lock file (fileLocks.ts), re-read the record under it and check
 *   its version, so concurrent writers, in any process, never lose an update.
 * - Bounded as the memory store is (FILE_STORE_LIMITS, in files and bytes): to make room for a new session,
 *   expired ones go first, then the least recently used. An evicted session is simply unknown (404).
 * - The directory must be this user's alone (sessionDirectory.ts). Whatever is in it is read without
 *   following links or waiting (fileAccess.ts): a file that is not a session record (a link, a FIFO, a
 *   directory, garbage) is set aside (`<sessionId>.json.corrupt-<epoch ms>`) with a warning, and is no
 *   session; other I/O failures are SessionStoreError (503), naming the directory.
 * - Expired records, and what crashed writers left (temporary files, locks), are swept in the background:
 *   on first use, then every SWEEP_INTERVAL_MS. Until then an expired record is returned as it is, as
 *   the other stores do: expiry is the caller's check.
 */
export class FileSessionStore extends BaseSessionStore implements SessionStore {
  protected readonly keyName = "file name";
  /** The session files' directory, absolute. */
  readonly directory: string;
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  private readonly locks: SessionLocks;
  private readonly budget: DirectoryBudget;
  private readonly gate: DirectoryGate;
  private lastSweepAt = Number.NEGATIVE_INFINITY;
  private sweeping: Promise<SweepResult> | undefined;
  /** When the last sweep that listed the whole directory started (this.now()); undefined before the first. */
  private countedAt: number | undefined;
  /** Creates take turns: each makes room for itself and writes before the next counts what is left. */
  private creating: Promise<unknown> = Promise.resolve();
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
    limits = {},
  }: FileSessionStoreOptions) {
    super();
    this.directory = resolve(directory);
    this.now = now;
    this.budget = new DirectoryBudget({ ...FILE_STORE_LIMITS, ...limits });
    // A warning never fails a request, nor the background sweep.
    this.warn = (message) => {
      try {
        onWarning(message);
      } catch {
        // The listener's failure is its own: the repair it reports is done.
      }
    };
    this.gate = new DirectoryGate(this.directory, this.warn, (operation, error) =>
      this.ioError(operation, error),
    );
    this.locks = new SessionLocks({
      directory: this.directory,
      remakeDirectory: (operation) => this.gate.remake(operation),
      ioError: (operation, error) => this.ioError(operation, error),
    });
  }

  protected recordLimit(): RecordLimit {
    return {
      bytes: Math.min(FILE_STORE_MAX_RECORD_BYTES, this.budget.limits.maxBytes),
      holder: "a session file holds",
    };
  }

  protected async putRecord(record: SessionRecord, { text, bytes }: Serialised): Promise<void> {
    await this.begin("create");
    const turn = this.creating.then(() => this.createFile(record, text, bytes));
    this.creating = turn.catch(() => undefined);
    await turn;
  }

  protected async getRecord(sessionId: string, context: RequestContext): Promise<SessionRecord | undefined> {
    await this.begin("get");
    const record = await this.read(sessionId, "get", context);
    if (record) this.budget.touch(sessionId, this.now());
    return record;
  }

  protected async updateRecord(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
    context: RequestContext,
  ): Promise<UpdateResult> {
    await this.begin("update");
    const lock = await this.locks.lock(sessionId, "update", context);
    try {
      const current = await this.read(sessionId, "update", lock);
      if (!current) return "missing";
      if (current.version !== expectedVersion) return "conflict";
      const updated = applyChanges(current, changes, bumpVersion);
      this.noteWrite(sessionId);
      const { text, bytes } = serialise(updated);
      const temp = await this.writeTemp(sessionId, text, "update");
      try {
        await this.locks.checkHeld(lock, "update");
        await rename(temp, this.fileOf(sessionId));
      } catch (error) {
        throw this.ioError("update", error);
      } finally {
        await removeQuietly(temp);
      }
      // An update never makes room: it changes a record's size by a few bytes, the next create evens it out.
      this.budget.note(sessionId, bytes, updated.expiresAt, this.now());
      return "updated";
    } finally {
      await this.locks.unlock(lock);
    }
  }

  protected async deleteRecord(sessionId: string, context: RequestContext): Promise<boolean> {
    await this.begin("delete");
    const lock = await this.locks.lock(sessionId, "delete", context);
    try {
      if (!(await this.read(sessionId, "delete", lock))) return false;
      await this.locks.checkHeld(lock, "delete");
      const removed = await unlinkIfThere(this.fileOf(sessionId)).catch((error: unknown) => {
        throw this.ioError("delete", error);
      });
      this.budget.forget(sessionId);
      return removed;
    } finally {
      await this.locks.unlock(lock);
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

  /** Makes room for the new session's file, then links it in under its name (create-if-absent). */
  private async createFile(record: SessionRecord, text: string, bytes: number): Promise<void> {
    const id = record.sessionId;
    await this.makeRoom(bytes);
    this.noteWrite(id);
    const temp = await this.writeTemp(id, text, "create");
    try {
      // A hard link fails if the name exists, in whatever process made it: create-if-absent, atomically.
      for (let attempt = 0; ; attempt++) {
        try {
          await link(temp, this.fileOf(id));
          this.budget.note(id, bytes, record.expiresAt, this.now());
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

  /**
   * Removes sessions until one more file of `bytes` fits the limits: the expired first, then the least
   * recently used. The first create after a start waits for the first count of the directory; a create
   * that finds it full counts again if the last count is older than RECOUNT_INTERVAL_MS (a count sweeps
   * every expired record away). A session in use by a writer (its lock held) is passed over.
   */
  private async makeRoom(bytes: number): Promise<void> {
    const stale = () =>
      this.countedAt === undefined ||
      (!this.budget.fits(bytes) && this.now() - this.countedAt >= RECOUNT_INTERVAL_MS);
    if (stale()) await this.count();
    const passed = new Set<string>();
    while (!this.budget.fits(bytes)) {
      const candidate = this.budget.nextCandidate(this.now() / 1000, passed);
      if (!candidate) {
        throw new SessionStoreError(
          `session store create failed: the session directory ${this.directory} holds ${this.budget.size} sessions in ${this.budget.bytes} bytes, its limit, and every one is being written`,
        );
      }
      passed.add(candidate.id);
      await this.evict(candidate.id, candidate.expired);
    }
  }

  /** Runs a sweep that lists the whole directory, unless the one under way (or just over) did. */
  private async count(): Promise<void> {
    const before = this.countedAt;
    while (this.sweeping) await this.sweeping;
    if (this.countedAt === before) await this.startSweep();
  }

  /**
   * Removes the session's file to make room, under its lock (a writer holding it: passed over). One
   * chosen as expired is removed only if it still is: another process may have extended it since.
   */
  private async evict(sessionId: string, expired: boolean): Promise<void> {
    const lock = await this.locks.tryLock(sessionId, "create");
    if (!lock) return;
    try {
      const current = await this.read(sessionId, "create", lock);
      if (!current || (expired && !hasExpired(current, this.now()))) return;
      await this.locks.checkHeld(lock, "create");
      await unlinkIfThere(this.fileOf(sessionId)).catch((error: unknown) => {
        throw this.ioError("create", error);
      });
      this.budget.forget(sessionId);
    } finally {
      await this.locks.unlock(lock);
    }
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

  /**
   * Reads the directory entry by entry (a large one is never held whole), each file a few awaits. Every
   * record read is counted in the budget: a sweep that lists the whole directory is a count of it.
   */
  private async sweepFiles(): Promise<SweepResult> {
    const result: SweepResult = { expired: 0, temporary: 0, locks: 0 };
    const startedAt = this.now();
    const count = this.budget.beginCount();
    let failure: string | undefined;
    let listed = false;
    try {
      // A directory refused for its owner or mode is left as it is: nothing in it is read.
      const problem = await checkSessionDirectory(this.directory);
      if (problem !== undefined) {
        this.gate.warnRefusal(problem);
        return result;
      }
      for await (const entry of await opendir(this.directory)) {
        try {
          await this.sweepFile(entry.name, result);
        } catch (error) {
          failure ??= describeError(error);
        }
      }
      listed = true;
    } catch (error) {
      // No directory: nothing in it, a count of zero.
      if (codeOf(error) === "ENOENT") listed = true;
      else failure ??= describeError(error);
    }
    if (listed) {
      this.budget.endCount(count);
      this.countedAt = startedAt;
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
      // Reading counts the file, and sets a corrupt one aside; a live record costs nothing more.
      const seen = await this.read(recordId, "sweep", undefined);
      if (!seen || !hasExpired(seen, this.now())) return;
      const lock = await this.locks.tryLock(recordId, "sweep");
      if (!lock) return; // in use: the next sweep decides
      try {
        // Re-read under the lock: an update may have extended it since.
        const current = await this.read(recordId, "sweep", lock);
        if (current && hasExpired(current, this.now()) && !this.writtenDuringSweep.has(recordId)) {
          await this.locks.checkHeld(lock, "sweep");
          if (await unlinkIfThere(this.fileOf(recordId))) result.expired++;
          this.budget.forget(recordId);
        }
      } finally {
        await this.locks.unlock(lock);
      }
    } else if (isDebris(name)) {
      if (await removeStaleDebris(this.directory, name)) result.temporary++;
    } else if (LOCK_FILE.test(name)) {
      if ((await this.locks.breakIfStale(join(this.directory, name), "sweep")) === "broken") result.locks++;
    }
  }

  /** What every call does first: make the directory (once), and start a sweep when one is due. */
  private async begin(operation: string): Promise<void> {
    await this.gate.open(operation);
    if (!this.sweeping && this.now() - this.lastSweepAt >= SWEEP_INTERVAL_MS) void this.startSweep();
  }

  private noteWrite(sessionId: string): void {
    if (this.sweeping) this.writtenDuringSweep.add(sessionId);
  }

  private fileOf(sessionId: string): string {
    return join(this.directory, `${sessionId}.json`);
  }

  /**
   * The session's record, or undefined when there is none; what it finds is counted in the budget. A
   * corrupt file is set aside under the session's lock (`held`, or taken here within the context; a sweep's
   * `undefined` tries once): re-read under the lock first, since a file is only replaced by a lock holder,
   * never by a reader that read it earlier.
   */
  private async read(
    sessionId: string,
    operation: string,
    held: Lock | RequestContext | undefined,
  ): Promise<SessionRecord | undefined> {
    const loaded = await this.load(sessionId, operation);
    if (!loaded) {
      this.budget.forget(sessionId);
      return undefined;
    }
    if ("record" in loaded) {
      const { record, bytes } = loaded;
      this.budget.note(sessionId, bytes, record.expiresAt, record.updatedAt);
      return record;
    }
    if (held !== undefined && "token" in held) {
      await this.setAside(sessionId, loaded.problem);
      return undefined;
    }
    let lock: Lock | undefined;
    try {
      lock =
        held === undefined
          ? await this.locks.tryLock(sessionId, operation)
          : await this.locks.lock(sessionId, operation, held);
    } catch {
      // The corrupt file stays for the next reader; it is no session either way.
    }
    if (!lock) return undefined;
    try {
      return await this.read(sessionId, operation, lock);
    } finally {
      await this.locks.unlock(lock);
    }
  }

  /** The session's file: its record, or why it is not one; undefined when there is no file. */
  private async load(sessionId: string, operation: string): Promise<Loaded | undefined> {
    let read: FileRead | undefined;
    try {
      read = await readRegularFile(this.fileOf(sessionId), MAX_FILE_BYTES);
    } catch (error) {
      throw this.ioError(operation, error);
    }
    if (read === undefined || "problem" in read) return read;
    const parsed = parseRecord(read.bytes.toString("utf8"), sessionId);
    return "record" in parsed ? { record: parsed.record, bytes: read.bytes.length } : parsed;
  }

  /**
   * Renames what is not a session file out of the way (kept for a look, never read again; a link or a FIFO
   * is moved itself, not what it names); warns once.
   */
  private async setAside(sessionId: string, problem: string): Promise<void> {
    const file = this.fileOf(sessionId);
    const aside = `${file}.corrupt-${Date.now()}`;
    try {
      await rename(file, aside);
      this.budget.forget(sessionId);
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
        // "wx": a new file (O_EXCL), never through a link someone left under the name.
        await writeFile(temp, text, { flag: "wx", mode: 0o600 });
        return temp;
      } catch (error) {
        await removeQuietly(temp);
        // The directory was removed under a running server: make it again, once.
        if (codeOf(error) !== "ENOENT" || attempt > 0) throw this.ioError(operation, error);
        await this.gate.remake(operation);
      }
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
