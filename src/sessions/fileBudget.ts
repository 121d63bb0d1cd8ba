/** How much the file store's directory holds: session files, and their bytes (each file is a record as JSON). */
export interface FileStoreLimits {
  maxSessions: number;
  maxBytes: number;
}

/**
 * The memory store's bounds (MEMORY_STORE_LIMITS), with the same meaning: 10,000 sessions of a typical
 * record (well under 1 KB), or about 130 of the largest (64 KiB of initialize params each), in 8 MiB of
 * JSON. On disk each file also takes a whole block: with 4 KiB blocks, under 50 MB however the sessions
 * come, a tenth of Lambda's smallest /tmp (512 MB).
 */
export const FILE_STORE_LIMITS: FileStoreLimits = { maxSessions: 10_000, maxBytes: 8 * 1024 * 1024 };

/**
 * The same bound as a DynamoDB item (400 KB), so a session that works under `npm start` also works
 * deployed. Far above what reaches a store: initialize params are refused over 64 KiB at the edge
 * (SESSION_DATA_LIMITS); this only guards the store itself, and every get reads the whole file.
 */
export const FILE_STORE_MAX_RECORD_BYTES = 400 * 1024;

interface Entry {
  bytes: number;
  /** Epoch seconds, as in the record. */
  expiresAt: number;
  /** Epoch milliseconds: the record's last write, or this process's last use of it if later. */
  usedAt: number;
  /** The count that last saw it (see beginCount). */
  seenIn: number;
}

/** An eviction candidate, and whether it was chosen as expired (so it is evicted only if it still is). */
export interface Candidate {
  id: string;
  expired: boolean;
}

/**
 * What the file store knows its directory holds: each session file's size, expiry and last use, kept as this
 * process writes and reads them, and made whole by counting the directory (every record file read: the
 * store's sweep). Other processes sharing the directory write files this one learns of at its next count.
 */
export class DirectoryBudget {
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;
  private count = 0;

  constructor(readonly limits: FileStoreLimits) {}

  get size(): number {
    return this.entries.size;
  }

  /** The session files' bytes as known, the quantity `maxBytes` bounds. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Whether one more session file of `bytes` keeps the directory within its limits. */
  fits(bytes: number): boolean {
    return this.entries.size < this.limits.maxSessions && this.totalBytes + bytes <= this.limits.maxBytes;
  }

  /** A session file as seen or written now; its last use is the later of `usedAt` and what was known. */
  note(sessionId: string, bytes: number, expiresAt: number, usedAt: number): void {
    const known = this.entries.get(sessionId);
    this.totalBytes += bytes - (known?.bytes ?? 0);
    this.entries.set(sessionId, {
      bytes,
      expiresAt,
      usedAt: Math.max(usedAt, known?.usedAt ?? Number.NEGATIVE_INFINITY),
      seenIn: this.count,
    });
  }

  /** This process used the session now (a read: the file is unchanged). */
  touch(sessionId: string, usedAt: number): void {
    const known = this.entries.get(sessionId);
    if (known) known.usedAt = Math.max(known.usedAt, usedAt);
  }

  /** The session's file is gone. */
  forget(sessionId: string): void {
    const known = this.entries.get(sessionId);
    if (!known) return;
    this.entries.delete(sessionId);
    this.totalBytes -= known.bytes;
  }

  /** A count of the directory starts: what it does not see, and nothing notes meanwhile, is gone at its end. */
  beginCount(): number {
    return ++this.count;
  }

  /** The count `count` listed the whole directory: drops the files it did not find (another process removed them). */
  endCount(count: number): void {
    for (const [id, entry] of this.entries) if (entry.seenIn < count) this.forget(id);
  }

  /**
   * What to remove next to make room, `passed` aside: an expired session while there is one (the longest
   * expired first), else the live one least recently used. `nowSeconds` is epoch seconds, as `expiresAt`.
   * One pass, no sort: a create at the limit usually removes one file.
   */
  nextCandidate(nowSeconds: number, passed: ReadonlySet<string>): Candidate | undefined {
    let expired: [string, Entry] | undefined;
    let live: [string, Entry] | undefined;
    for (const item of this.entries) {
      const [id, entry] = item;
      if (passed.has(id)) continue;
      if (entry.expiresAt <= nowSeconds) {
        if (!expired || entry.expiresAt < expired[1].expiresAt) expired = item;
      } else if (!live || entry.usedAt < live[1].usedAt) {
        live = item;
      }
    }
    if (expired) return { id: expired[0], expired: true };
    return live && { id: live[0], expired: false };
  }
}
