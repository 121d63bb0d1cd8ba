import { describe, expect, it } from "vitest";
import { lazyStore } from "../../src/sessions/lazyStore.js";
import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import type { SessionRecord, SessionStore } from "../../src/sessions/store.js";
import { testContext } from "../support/context.js";

// src/sessions/lazyStore.ts: a session store made on its first use (the file and DynamoDB stores'
// modules load then, not at a cold start). Behind it, the real memory store.

function record(sessionId: string): SessionRecord {
  const now = Date.now();
  return {
    sessionId,
    initializeParams: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
    protocolVersion: "2025-06-18",
    logLevel: undefined,
    principal: undefined,
    createdAt: now,
    updatedAt: now,
    expiresAt: Math.floor(now / 1000) + 3600,
    version: 1,
  };
}

describe("a session store made on first use", () => {
  it("is made once, for uses together and after, and answers as the store it makes", async () => {
    let made = 0;
    const inner = new MemorySessionStore();
    const store = lazyStore(async () => {
      made++;
      return inner;
    });
    expect(made).toBe(0);
    const context = testContext();
    await Promise.all([store.create(record("a"), context), store.create(record("b"), context)]);
    expect(await store.get("a", context)).toEqual(await inner.get("a", context));
    expect(await store.update("a", 1, { logLevel: "debug" }, true, context)).toBe("updated");
    expect((await inner.get("a", context))?.logLevel).toBe("debug");
    expect(await store.delete("b", context)).toBe(true);
    expect(await inner.get("b", context)).toBeUndefined();
    expect(made).toBe(1);
  });

  it("fails a use with the load's error, and loads again on the next use", async () => {
    let made = 0;
    const store: SessionStore = lazyStore(async () => {
      made++;
      if (made === 1) throw new Error("module unreadable");
      return new MemorySessionStore();
    });
    const context = testContext();
    await expect(store.get("a", context)).rejects.toThrow("module unreadable");
    await store.create(record("a"), context);
    expect(await store.get("a", context)).toMatchObject({ sessionId: "a" });
    expect(made).toBe(2);
  });
});
