import type { RequestContext } from "../context.js";
import { BaseSessionStore, type RecordLimit } from "./baseStore.js";
import { applyChanges, hasExpired, type Serialised, serialise } from "./record.js";
import {
  type SessionChanges,
  type SessionRecord,
  type SessionStore,
  SessionStoreError,
  type UpdateResult,
} from "./store.js";

/** How much one container's memory holds: records, and their bytes as JSON (UTF-8). */
export interface MemoryStoreLimits {
  maxSessions: number;
  maxBytes: number;
}

/**
 * 10,000 sessions of a typical record (well under 1 KB), or 128 of the largest (64 KiB of initialize
 * params each), in 8 MiB of JSON: under 50 MB of heap even for params made of many tiny keys (which take
 * several times their JSON's bytes in heap; bench case memory-sessions measures the store), whatever a
 * long `npm start` or a flood of `initialize` does.
 */
export const MEMORY_STORE_LIMITS: MemoryStoreLimits = { maxSessions: 10_000, maxBytes: 8 * 1024 * 1024 };

/** Expired records are also dropped now and then, without waiting for the bounds to be reached. */
const SWEEP_EVERY = 1000;

interface Entry {
  record: SessionRecord;
  bytes: number;
}

/**
 * Sessions in this container's memory: the default without SESSION_TABLE (npm start, one warm container).
 * Bounded in count and bytes: to make room, expired records go first, then the least recently used
 * (created, read or updated). An evicted session is simply unknown: 404, as for any unknown id.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: `void`, unlike `undefined`, lets a caller leave the argument out
export class MemorySessionStore extends BaseSessionStore<RequestContext | void> implements SessionStore {
  protected readonly keyName = "key";
  /** Least recently used first: every create, get and update moves its record to the end. */
  private readonly entries = new Map<string, Entry>();
  private readonly limits: MemoryStoreLimits;
  private totalBytes = 0;
  /** No record expires before this (epoch seconds): a lower bound, exact after each sweep. */
  private earliestExpiry = Number.POSITIVE_INFINITY;
  private createsSinceSweep = 0;

  constructor(
    private readonly now: () => number = Date.now,
    limits: Partial<MemoryStoreLimits> = {},
  ) {
    super();
    this.limits = { ...MEMORY_STORE_LIMITS, ...limits };
  }

  protected recordLimit(): RecordLimit {
    return { bytes: this.limits.maxBytes, holder: "this server keeps in memory" };
  }

  protected async putRecord(record: SessionRecord, { bytes }: Serialised): Promise<void> {
    if (this.entries.has(record.sessionId))
      throw new SessionStoreError(`session ${record.sessionId} exists already`);
    if (++this.createsSinceSweep >= SWEEP_EVERY) this.sweepExpired();
    this.put(structuredClone(record), bytes);
  }

  protected async getRecord(sessionId: string): Promise<SessionRecord | undefined> {
    const entry = this.touch(sessionId);
    return entry && structuredClone(entry.record);
  }

  protected async updateRecord(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
  ): Promise<UpdateResult> {
    const entry = this.touch(sessionId);
    if (!entry) return "missing";
    if (entry.record.version !== expectedVersion) return "conflict";
    const updated = applyChanges(entry.record, changes, bumpVersion);
    this.remove(sessionId);
    this.put(updated, serialise(updated).bytes);
    return "updated";
  }

  protected async deleteRecord(sessionId: string): Promise<boolean> {
    return this.remove(sessionId);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The records' size as JSON, the quantity `maxBytes` bounds. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Stores `record` as the most recently used, first making room for it: expired records, then the least recently used. */
  private put(record: SessionRecord, bytes: number): void {
    const fits = () =>
      this.entries.size < this.limits.maxSessions && this.totalBytes + bytes <= this.limits.maxBytes;
    if (!fits()) {
      this.sweepExpired();
      for (const id of this.entries.keys()) {
        if (fits()) break;
        this.remove(id);
      }
    }
    this.entries.set(record.sessionId, { record, bytes });
    this.totalBytes += bytes;
    this.earliestExpiry = Math.min(this.earliestExpiry, record.expiresAt);
  }

  /** The entry, now the most recently used. */
  private touch(sessionId: string): Entry | undefined {
    const entry = this.entries.get(sessionId);
    if (entry) {
      this.entries.delete(sessionId);
      this.entries.set(sessionId, entry);
    }
    return entry;
  }

  private remove(sessionId: string): boolean {
    const entry = this.entries.get(sessionId);
    if (!entry) return false;
    this.entries.delete(sessionId);
    this.totalBytes -= entry.bytes;
    return true;
  }

  /** Drops every expired record; a no-op (no scan) while none can have expired yet. */
  private sweepExpired(): void {
    this.createsSinceSweep = 0;
    const now = this.now();
    if (this.earliestExpiry * 1000 > now) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, { record }] of this.entries) {
      if (hasExpired(record, now)) this.remove(id);
      else earliest = Math.min(earliest, record.expiresAt);
    }
    this.earliestExpiry = earliest;
  }
}
