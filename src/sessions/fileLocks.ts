import { randomBytes, randomUUID } from "node:crypto";
import { link, lstat, open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { abortedByDeadline, type RequestContext } from "../context.js";
import { STORE_CALL_TIMEOUT_MS as LOCK_WAIT_MS } from "../deadline.js";
import { codeOf, readRegularFile, removeQuietly } from "./fileAccess.js";
import { SessionStoreError } from "./store.js";

/** A writer holds a session's lock for a few milliseconds: one older than this was left by a crash. */
export const STALE_LOCK_MS = 5_000;

/** A lock holds its token (a pid and a UUID): anything longer was not written by a lock holder. */
const MAX_LOCK_BYTES = 256;

/** A lock this store holds: its file, and the token written in it that tells it from a later one. */
export interface Lock {
  path: string;
  token: string;
}

/** What the locks need of their store: its directory made again when removed, and its errors. */
export interface LockOwner {
  readonly directory: string;
  /** Makes the directory again (it was removed under a running server); throws as the store does. */
  remakeDirectory(operation: string): Promise<void>;
  /** A failure as the store reports it: one line naming the operation and the directory. */
  ioError(operation: string, error: unknown): SessionStoreError;
}

/**
 * Per-session lock files (`<sessionId>.lock`, created exclusively, holding a token of their holder's), so
 * writers in any process take turns. A lock older than STALE_LOCK_MS was left by a crash and is broken; a
 * holder checks its token is still there before it writes. A lock file is never followed through a link,
 * never waited on (a FIFO) and read no further than a token's length.
 */
export class SessionLocks {
  constructor(private readonly owner: LockOwner) {}

  /** Takes the session's lock, waiting for another writer at most LOCK_WAIT_MS and never past the deadline. */
  async lock(sessionId: string, operation: string, context: RequestContext): Promise<Lock> {
    const started = Date.now();
    const giveUpAt = Math.min(context.deadlineAt, started + LOCK_WAIT_MS);
    for (let delay = 1; ; delay = Math.min(delay * 2, 20)) {
      const lock = await this.tryLock(sessionId, operation);
      if (lock) return lock;
      const left = giveUpAt - Date.now();
      if (left <= 0) {
        throw new SessionStoreError(
          `session store ${operation} failed: another writer held the session's lock in ${this.owner.directory} for ${Date.now() - started} ms`,
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
  async tryLock(sessionId: string, operation: string): Promise<Lock | undefined> {
    const path = join(this.owner.directory, `${sessionId}.lock`);
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
          await this.owner.remakeDirectory(operation);
        } else if (code !== "EEXIST") {
          throw this.owner.ioError(operation, error);
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
   * checks it moved the file it judged stale, not a fresh lock taken meanwhile, which it puts back. The age is
   * the name's own (lstat): a link is judged, never what it points to.
   */
  async breakIfStale(path: string, operation: string): Promise<"held" | "gone" | "broken"> {
    try {
      const seen = await lstat(path, { bigint: true });
      if (Date.now() - Number(seen.mtimeMs) < STALE_LOCK_MS) return "held";
      const content = await lockContent(path);
      if (content === undefined) return "gone";
      const aside = `${path}.${randomBytes(6).toString("hex")}.stale`;
      await rename(path, aside);
      try {
        const moved = await lstat(aside, { bigint: true });
        if (
          moved.ino === seen.ino &&
          moved.mtimeNs === seen.mtimeNs &&
          (await lockContent(aside)) === content
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
      throw this.owner.ioError(operation, error);
    }
  }

  /**
   * Throws unless `lock` is still this store's: a writer stalled past STALE_LOCK_MS may have lost it to a
   * breaker, and must then write nothing.
   */
  async checkHeld(lock: Lock, operation: string): Promise<void> {
    const content = await lockContent(lock.path).catch(() => undefined);
    if (content !== lock.token) {
      throw new SessionStoreError(
        `session store ${operation} failed: the session's lock in ${this.owner.directory} was taken over (stalled over ${STALE_LOCK_MS} ms); nothing written`,
      );
    }
  }

  async unlock(lock: Lock): Promise<void> {
    try {
      if ((await lockContent(lock.path)) === lock.token) await unlink(lock.path);
    } catch {
      // Gone or unreadable: a lock left behind is broken once stale.
    }
  }
}

/**
 * A lock file's token; undefined when the file is gone. What is not a lock of this store's (a link, a FIFO,
 * a file longer than a token) reads as its problem after a NUL, which no token holds.
 */
async function lockContent(path: string): Promise<string | undefined> {
  const read = await readRegularFile(path, MAX_LOCK_BYTES);
  if (read === undefined) return undefined;
  return "bytes" in read ? read.bytes.toString("utf8") : `\u0000${read.problem}`;
}
