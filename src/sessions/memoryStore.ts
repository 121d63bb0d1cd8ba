import {
  type SessionChanges,
  type SessionRecord,
  type SessionStore,
  SessionStoreError,
  type UpdateResult,
} from "./store.js";

const SWEEP_EVERY = 1000;

/** Sessions in this container's memory: the default without SESSION_TABLE (npm start, one warm container). */
export class MemorySessionStore implements SessionStore {
  private readonly records = new Map<string, SessionRecord>();
  private createsSinceSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async create(record: SessionRecord): Promise<void> {
    if (this.records.has(record.sessionId))
      throw new SessionStoreError(`session ${record.sessionId} exists already`);
    this.records.set(record.sessionId, structuredClone(record));
    if (++this.createsSinceSweep >= SWEEP_EVERY) this.sweepExpired();
  }

  /** Expired records are dropped now and then, so a long `npm start` does not grow without bound. */
  private sweepExpired(): void {
    this.createsSinceSweep = 0;
    const nowSeconds = this.now() / 1000;
    for (const [id, record] of this.records) {
      if (record.expiresAt <= nowSeconds) this.records.delete(id);
    }
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const record = this.records.get(sessionId);
    return record && structuredClone(record);
  }

  async update(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
  ): Promise<UpdateResult> {
    const record = this.records.get(sessionId);
    if (!record) return "missing";
    if (record.version !== expectedVersion) return "conflict";
    this.records.set(sessionId, {
      ...record,
      ...structuredClone(changes),
      version: bumpVersion ? record.version + 1 : record.version,
    });
    return "updated";
  }

  async delete(sessionId: string): Promise<boolean> {
    return this.records.delete(sessionId);
  }

  get size(): number {
    return this.records.size;
  }
}
