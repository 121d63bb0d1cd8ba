import type { RequestContext } from "../context.js";
import { checkStorable } from "./limits.js";
import { isSafeSessionId, type Serialised, serialise } from "./record.js";
import {
  type SessionChanges,
  SessionDataError,
  type SessionRecord,
  SessionStoreError,
  type UpdateResult,
} from "./store.js";

/** The most a medium keeps of one record, and how a refusal names it ("a session file holds"). */
export interface RecordLimit {
  /** UTF-8 bytes of the record as JSON (record.ts `serialise`); Infinity where the medium refuses by itself. */
  bytes: number;
  holder: string;
}

/**
 * What every session store does the same way, as Powertools' BasePersistenceLayer does for its
 * idempotency stores: the rules live here, and each store implements only how its medium creates, reads,
 * changes and removes one record.
 *
 * - An id that is not a safe key (record.ts `isSafeSessionId`) is no session: get finds nothing, update
 *   finds it missing, delete removes nothing, and create refuses it (SessionStoreError).
 * - A record is checked before it is stored: its client data must be storable exactly (limits.ts
 *   `checkStorable`) and its JSON within the medium's RecordLimit (SessionDataError, answered 400).
 * - The medium then gets the record with its serialised form, so the size is measured once.
 *
 * Expiry is the caller's check (record.ts `hasExpired`, used by the manager and by the stores' sweeps):
 * a store returns an expired record as it is.
 *
 * `Context` is what the medium needs of the request: its context (deadline, signal, trace) for a store
 * that waits on I/O, or nothing (`RequestContext | void`) for one that answers at once, whose callers may
 * leave it out. Each concrete store declares `implements SessionStore`, which the compiler checks.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: `void`, unlike `undefined`, lets a caller leave the argument out
export abstract class BaseSessionStore<Context extends RequestContext | void = RequestContext> {
  /** What the medium calls a key, for the refusal of an unsafe id ("file name", "key"). */
  protected abstract readonly keyName: string;

  /** The bound on one record in this medium, read at each create (a store's limits may be its own). */
  protected abstract recordLimit(): RecordLimit;

  async create(record: SessionRecord, context: Context): Promise<void> {
    if (!isSafeSessionId(record.sessionId)) {
      throw new SessionStoreError(
        `session store create failed: the session id is not a safe ${this.keyName}`,
      );
    }
    checkStorable(record);
    const stored = serialise(record);
    const limit = this.recordLimit();
    if (stored.bytes > limit.bytes) {
      throw new SessionDataError(
        `Invalid params for initialize: the session takes ${stored.bytes} bytes, more than the ${limit.bytes} ${limit.holder}`,
      );
    }
    await this.putRecord(record, stored, context);
  }

  async get(sessionId: string, context: Context): Promise<SessionRecord | undefined> {
    return isSafeSessionId(sessionId) ? this.getRecord(sessionId, context) : undefined;
  }

  async update(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
    context: Context,
  ): Promise<UpdateResult> {
    if (!isSafeSessionId(sessionId)) return "missing";
    return this.updateRecord(sessionId, expectedVersion, changes, bumpVersion, context);
  }

  async delete(sessionId: string, context: Context): Promise<boolean> {
    return isSafeSessionId(sessionId) ? this.deleteRecord(sessionId, context) : false;
  }

  /** Stores a new record (checked, `stored` its JSON); throws SessionStoreError if the id exists already. */
  protected abstract putRecord(record: SessionRecord, stored: Serialised, context: Context): Promise<void>;
  /** The record under a safe id, expired or not; undefined when there is none. */
  protected abstract getRecord(sessionId: string, context: Context): Promise<SessionRecord | undefined>;
  /** The conditional update of SessionStore.update (record.ts `applyChanges` says what it writes). */
  protected abstract updateRecord(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
    context: Context,
  ): Promise<UpdateResult>;
  /** Removes the record; false when there was none. */
  protected abstract deleteRecord(sessionId: string, context: Context): Promise<boolean>;
}
