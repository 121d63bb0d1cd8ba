import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { completeInitialize, dispatch } from "../../src/bridge/dispatch.js";
import type { ActiveSession, SessionManager } from "../../src/sessions/manager.js";
import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import type { SessionChanges, SessionStore, UpdateResult } from "../../src/sessions/store.js";
import { testContext } from "../helpers/context.js";
import { ignores } from "../helpers/logLevel.js";
import { sessionContainer } from "../helpers/sessionContainer.js";

const TTL = 600;
const initialize = completeInitialize({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-03-26", clientInfo: { name: "unit", version: "1" } },
});

/** A container: a manager of its own over a shared store, recording the servers it builds. */
function container(store: SessionStore, clock: { now: number }, warmLimit?: number) {
  return sessionContainer(store, { ttlSeconds: TTL, warmLimit, now: () => clock.now });
}

async function start(manager: SessionManager): Promise<string> {
  const { reply, sessionId } = await manager.initialize(initialize, testContext(5_000));
  expect("result" in reply).toBe(true);
  return sessionId as string;
}

async function send(session: ActiveSession, message: Record<string, unknown>) {
  return dispatch(message, { context: testContext(5_000), bridge: async () => session.bridge });
}

/** Counts writes, to check expiry refreshes are rate-limited. */
class CountingStore extends MemorySessionStore {
  updates: { changes: SessionChanges; bumped: boolean }[] = [];
  override async update(
    id: string,
    version: number,
    changes: SessionChanges,
    bump: boolean,
  ): Promise<UpdateResult> {
    this.updates.push({ changes, bumped: bump });
    return super.update(id, version, changes, bump);
  }
}

describe("session manager", () => {
  it("stores what rebuilds the server: initialize params, negotiated version, principal, timestamps", async () => {
    const store = new MemorySessionStore();
    const clock = { now: 1_700_000_000_000 };
    const { manager } = container(store, clock);
    const { sessionId } = await manager.initialize(
      initialize,
      testContext(5_000, { principal: "arn:aws:iam::1:user/a" }),
    );
    expect(await store.get(sessionId as string)).toStrictEqual({
      sessionId,
      initializeParams: initialize.params,
      protocolVersion: "2025-03-26",
      logLevel: undefined,
      principal: "arn:aws:iam::1:user/a",
      createdAt: clock.now,
      updatedAt: clock.now,
      expiresAt: clock.now / 1000 + TTL,
      version: 1,
    });
  });

  it("a fresh container rehydrates the session: same client info, same log level", async () => {
    const store = new MemorySessionStore();
    const clock = { now: Date.now() };
    const first = container(store, clock);
    const id = await start(first.manager);
    const session = await first.manager.resume(id, testContext(5_000));
    if (!session) throw new Error("session missing");
    expect(
      await send(session, { jsonrpc: "2.0", id: 9, method: "logging/setLevel", params: { level: "error" } }),
    ).toMatchObject({
      reply: { result: {} },
    });
    await first.manager.persist(session, testContext(5_000));
    expect((await store.get(id))?.logLevel).toBe("error");

    const second = container(store, clock);
    const resumed = await second.manager.resume(id, testContext(5_000));
    expect(resumed?.id).toBe(id);
    const rebuilt = second.servers[0];
    expect(rebuilt?.server.getClientVersion()).toStrictEqual({ name: "unit", version: "1" });
    expect(ignores(rebuilt, "warning")).toBe(true);
    expect(ignores(rebuilt, "error")).toBe(false);
    expect(
      await send(resumed as ActiveSession, { jsonrpc: "2.0", id: "x", method: "tools/list" }),
    ).toMatchObject({
      reply: { id: "x", result: { tools: expect.any(Array) } },
    });
  });

  it("a warm container rebuilds when another container changed the session", async () => {
    const store = new MemorySessionStore();
    const clock = { now: Date.now() };
    const a = container(store, clock);
    const b = container(store, clock);
    const id = await start(a.manager);
    const onB = await b.manager.resume(id, testContext(5_000));
    await send(onB as ActiveSession, {
      jsonrpc: "2.0",
      id: 1,
      method: "logging/setLevel",
      params: { level: "critical" },
    });
    await b.manager.persist(onB as ActiveSession, testContext(5_000));
    expect(a.servers).toHaveLength(1);
    await a.manager.resume(id, testContext(5_000));
    expect(a.servers).toHaveLength(2);
    expect(ignores(a.servers[1], "error")).toBe(true);
    await a.manager.resume(id, testContext(5_000));
    expect(a.servers).toHaveLength(2);
  });

  it("concurrent first requests on a cold container all get answers, and one server stays warm", async () => {
    const store = new MemorySessionStore();
    const clock = { now: Date.now() };
    const id = await start(container(store, clock).manager);
    const cold = container(store, clock);
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const session = (await cold.manager.resume(id, testContext(5_000))) as ActiveSession;
        return send(session, { jsonrpc: "2.0", id: i, method: "tools/list" });
      }),
    );
    outcomes.forEach((outcome, i) => {
      expect(outcome).toMatchObject({ reply: { id: i, result: { tools: expect.any(Array) } } });
    });
    expect(cold.manager.warmCount).toBe(1);
  });

  it("expiry slides with use, and is written at most once a minute", async () => {
    const store = new CountingStore();
    const clock = { now: 1_700_000_000_000 };
    const { manager } = container(store, clock);
    const id = await start(manager);
    for (let i = 0; i < 10; i++) {
      clock.now += 5_000;
      expect(await manager.resume(id, testContext(5_000))).toBeDefined();
    }
    expect(store.updates).toHaveLength(0);
    clock.now += 15_000;
    await manager.resume(id, testContext(5_000));
    expect(store.updates).toStrictEqual([
      { changes: { expiresAt: clock.now / 1000 + TTL, updatedAt: clock.now }, bumped: false },
    ]);
    clock.now += (TTL - 1) * 1000;
    expect(await manager.resume(id, testContext(5_000))).toBeDefined();
    clock.now += TTL * 1000;
    expect(await manager.resume(id, testContext(5_000))).toBeUndefined();
    expect(await store.get(id)).toBeUndefined();
  });

  it("concurrent writers from two containers never lose an update", async () => {
    const store = new MemorySessionStore();
    const clock = { now: 1_700_000_000_000 };
    const a = container(store, clock);
    const b = container(store, clock);
    const id = await start(a.manager);
    const onA = (await a.manager.resume(id, testContext(5_000))) as ActiveSession;
    const onB = (await b.manager.resume(id, testContext(5_000))) as ActiveSession;
    await send(onA, { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "alert" } });
    clock.now += 120_000;
    await Promise.all([a.manager.persist(onA, testContext(5_000)), b.manager.resume(id, testContext(5_000))]);
    const record = await store.get(id);
    expect(record?.logLevel).toBe("alert");
    expect(record?.expiresAt).toBe(clock.now / 1000 + TTL);
    void onB;
  });

  it("a store that keeps conflicting ends in SessionStoreError, not a lost write", async () => {
    class AlwaysConflicting extends MemorySessionStore {
      override async update(): Promise<UpdateResult> {
        return "conflict";
      }
    }
    const store = new AlwaysConflicting();
    const { manager, servers } = container(store, { now: Date.now() });
    const id = await start(manager);
    const session = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    await send(session, { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "error" } });
    expect(ignores(servers[0], "warning")).toBe(true);
    await expect(manager.persist(session, testContext(5_000))).rejects.toMatchObject({
      name: "SessionStoreError",
    });
    // The change was not stored, so the warm server must not keep it: the next request rebuilds from the record.
    await manager.resume(id, testContext(5_000));
    expect(servers).toHaveLength(2);
    expect(ignores(servers[1], "warning")).toBe(false);
  });

  it("conflict retries back off exponentially and stop before the deadline", async () => {
    const attempts: number[] = [];
    class AlwaysConflicting extends MemorySessionStore {
      override async update(): Promise<UpdateResult> {
        attempts.push(performance.now());
        return "conflict";
      }
    }
    const { manager } = sessionContainer(new AlwaysConflicting(), {
      ttlSeconds: TTL,
      maxWriteAttempts: 1_000,
    });
    const id = await start(manager);
    const session = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    await send(session, { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "debug" } });
    const started = performance.now();
    await expect(manager.persist(session, testContext(400))).rejects.toMatchObject({
      name: "SessionStoreError",
    });
    expect(performance.now() - started).toBeLessThan(400);
    // Not a busy loop, and not given up at once: a handful of attempts, each wait at least twice the last's floor.
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    expect(attempts.length).toBeLessThanOrEqual(8);
    attempts.slice(1).forEach((at, index) => {
      expect(at - (attempts[index] as number)).toBeGreaterThanOrEqual(10 * 2 ** index - 2);
    });
  });

  it("10,000 sessions through one container keep the warm cache at its bound", async () => {
    const store = new MemorySessionStore();
    const { manager } = container(store, { now: Date.now() }, 50);
    for (let i = 0; i < 10_000; i++) {
      await start(manager);
      expect(manager.warmCount).toBeLessThanOrEqual(50);
    }
    expect(manager.warmCount).toBe(50);
    expect(store.size).toBe(10_000);
  }, 60_000);
});

type Op =
  | { kind: "initialize" }
  | { kind: "request"; session: number }
  | { kind: "delete"; session: number }
  | { kind: "coldStart" }
  | { kind: "advance"; seconds: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: "initialize" }),
  fc.nat(5).map<Op>((session) => ({ kind: "request", session })),
  fc.nat(5).map<Op>((session) => ({ kind: "delete", session })),
  fc.constant<Op>({ kind: "coldStart" }),
  fc.integer({ min: 1, max: 2 * TTL }).map<Op>((seconds) => ({ kind: "advance", seconds })),
);

describe("sessions against a model", () => {
  test.prop([fc.array(op, { minLength: 1, maxLength: 30 })], { numRuns: 80 })(
    "any interleaving of initialize, request, cold start, delete and expiry agrees with a map of live sessions",
    async (ops) => {
      const store = new MemorySessionStore();
      const clock = { now: 1_700_000_000_000 };
      let live = container(store, clock, 3).manager;
      const created: string[] = [];
      /** The model: session id → epoch ms at which it expires. */
      const model = new Map<string, number>();
      const alive = (id: string) => (model.get(id) ?? 0) > clock.now;
      for (const step of ops) {
        const id =
          created.length > 0 ? created[("session" in step ? step.session : 0) % created.length] : undefined;
        switch (step.kind) {
          case "initialize": {
            const newId = await start(live);
            created.push(newId);
            model.set(newId, clock.now + TTL * 1000);
            break;
          }
          case "request": {
            if (id === undefined) break;
            const session = await live.resume(id, testContext(5_000));
            expect(session !== undefined).toBe(alive(id));
            if (session) {
              expect(await send(session, { jsonrpc: "2.0", id: 1, method: "ping" })).toMatchObject({
                reply: { result: {} },
              });
              // Sliding expiry: refreshed when the last refresh is at least a minute old.
              const refreshedAt = (model.get(id) ?? 0) - TTL * 1000;
              if (clock.now - refreshedAt >= 60_000)
                model.set(id, Math.floor(clock.now / 1000) * 1000 + TTL * 1000);
            } else {
              model.delete(id);
            }
            break;
          }
          case "delete": {
            if (id === undefined) break;
            expect(await live.delete(id, testContext(5_000))).toBe(alive(id));
            model.delete(id);
            break;
          }
          case "coldStart":
            live = container(store, clock, 3).manager;
            break;
          case "advance":
            clock.now += step.seconds * 1000;
            break;
        }
        expect(live.warmCount).toBeLessThanOrEqual(3);
      }
    },
  );
});

describe("memory store", () => {
  it("drops expired records as sessions keep being created", async () => {
    const clock = { now: 1_700_000_000_000 };
    const store = new MemorySessionStore(() => clock.now);
    const { manager } = container(store, clock, 5);
    const first = await start(manager);
    clock.now += (TTL + 1) * 1000;
    for (let i = 0; i < 1000; i++) await start(manager);
    expect(await store.get(first)).toBeUndefined();
    expect(store.size).toBe(1000);
  });
});
