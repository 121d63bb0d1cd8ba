import { memoize } from "../util/memoize.js";
import type { SessionStore } from "./store.js";

/**
 * A session store whose module loads on its first use rather than at a cold start: the file store
 * (local runs only) and the DynamoDB one each bring modules a Lambda's init need not compile, and the
 * file store Node's `fs/promises` besides (bench case sdkFloor). A store that fails to load is made
 * again on the next use; its error is the call's, as a store's own would be.
 */
export function lazyStore(load: () => Promise<SessionStore>): SessionStore {
  const store = memoize(load, { onRejection: "retry" });
  return {
    create: async (record, context) => (await store()).create(record, context),
    get: async (sessionId, context) => (await store()).get(sessionId, context),
    update: async (sessionId, expectedVersion, changes, bumpVersion, context) =>
      (await store()).update(sessionId, expectedVersion, changes, bumpVersion, context),
    delete: async (sessionId, context) => (await store()).delete(sessionId, context),
  };
}
