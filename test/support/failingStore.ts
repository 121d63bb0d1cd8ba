import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import { type SessionChanges, SessionStoreError, type UpdateResult } from "../../src/sessions/store.js";

/** A memory store that fails the next `failures` writes as a throttled DynamoDB would, then works again. */
export class FailingStore extends MemorySessionStore {
  failures = 0;
  /** What a failing write throws instead of the store's own error (a fault no route answers). */
  failWith: Error | undefined;
  /** The changes of every write that succeeded. */
  readonly writes: SessionChanges[] = [];

  override async update(
    id: string,
    version: number,
    changes: SessionChanges,
    bump: boolean,
  ): Promise<UpdateResult> {
    if (this.failures > 0) {
      this.failures--;
      throw this.failWith ?? new SessionStoreError("session store update failed: ThrottlingException");
    }
    this.writes.push(changes);
    return super.update(id, version, changes, bump);
  }
}
