import { fc, test } from "@fast-check/vitest";
import { describe, expect, it, vi } from "vitest";
import { completeInitialize, dispatch } from "../../src/mcp/bridge/dispatch.js";
import { describeUnstorable, SESSION_DATA_LIMITS } from "../../src/sessions/limits.js";
import type { ActiveSession, SessionManager } from "../../src/sessions/manager.js";
import { MEMORY_STORE_LIMITS, MemorySessionStore } from "../../src/sessions/memoryStore.js";
import {
  type SessionChanges,
  SessionDataError,
  type SessionRecord,
  type SessionStore,
  SessionStoreError,
  type UpdateResult,
} from "../../src/sessions/store.js";
import { testContext } from "../support/context.js";
import { FailingStore } from "../support/failingStore.js";
import { advance, useFakeClock, watch } from "../support/fakeClock.js";
import { ignores } from "../support/logLevel.js";
import { sessionContainer } from "../support/sessionContainer.js";

// The manager's backoff sleeps through node:timers/promises: on the global timers, a fake clock moves it.
vi.mock("node:timers/promises", async (original) =>
  (await import("../support/fakeClock.js")).timersPromisesOnGlobalTimers(await original<object>()),
);

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
  expect("result" in reply.message).toBe(true);
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

  it("a rehydration that runs out of time is a store-like 503 (retry), never a fault", async () => {
    const store = new MemorySessionStore();
    const clock = { now: Date.now() };
    const id = await start(container(store, clock).manager);
    const fresh = container(store, clock);
    await expect(fresh.manager.resume(id, testContext(0))).rejects.toThrow(SessionStoreError);
    // With time, the same container rebuilds it.
    expect((await fresh.manager.resume(id, testContext(5_000)))?.id).toBe(id);
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
      reply: { message: { result: {} } },
    });
    await first.manager.persist(session, testContext(5_000));
    expect((await store.get(id))?.logLevel).toBe("error");

    const second = container(store, clock);
    const resumed = await second.manager.resume(id, testContext(5_000));
    expect(resumed?.id).toBe(id);
    const rebuilt = second.servers[0];
    expect(rebuilt?.getClientVersion()).toStrictEqual({ name: "unit", version: "1" });
    expect(await ignores(rebuilt, "warning")).toBe(true);
    expect(await ignores(rebuilt, "error")).toBe(false);
    expect(
      await send(resumed as ActiveSession, { jsonrpc: "2.0", id: "x", method: "tools/list" }),
    ).toMatchObject({
      reply: { message: { id: "x", result: { tools: expect.any(Array) } } },
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
    expect(await ignores(a.servers[1], "error")).toBe(true);
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
      expect(outcome).toMatchObject({ reply: { message: { id: i, result: { tools: expect.any(Array) } } } });
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
    expect(await ignores(servers[0], "warning")).toBe(true);
    await expect(manager.persist(session, testContext(5_000))).rejects.toMatchObject({
      name: "SessionStoreError",
    });
    // The change was not stored, so the warm server must not keep it: the next request rebuilds from the record.
    await manager.resume(id, testContext(5_000));
    expect(servers).toHaveLength(2);
    expect(await ignores(servers[1], "warning")).toBe(false);
  });

  it("conflict retries back off exponentially and stop before the deadline", async () => {
    const attempts: number[] = [];
    class AlwaysConflicting extends MemorySessionStore {
      override async update(): Promise<UpdateResult> {
        attempts.push(Date.now());
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
    // On a clock moved by hand, every wait is exactly the one the manager chose.
    useFakeClock();
    try {
      const deadline = Date.now() + 400;
      let gaveUpAt: number | undefined;
      const persisted = watch(
        manager.persist(session, testContext(400)).finally(() => {
          gaveUpAt = Date.now();
        }),
      );
      await advance(400);
      expect(persisted.settled).toBe(true);
      await expect(persisted.promise).rejects.toMatchObject({ name: "SessionStoreError" });
      // Not a busy loop, and not given up at once: waits of 20 ms doubling, each jittered within its
      // upper half (src/util/backoff.ts), so five or six attempts fit in 400 ms.
      expect(attempts.length).toBeGreaterThanOrEqual(5);
      expect(attempts.length).toBeLessThanOrEqual(6);
      attempts.slice(1).forEach((at, index) => {
        const waited = at - (attempts[index] as number);
        expect(waited, `wait ${index + 1}`).toBeGreaterThanOrEqual(10 * 2 ** index);
        expect(waited, `wait ${index + 1}`).toBeLessThanOrEqual(20 * 2 ** index);
      });
      // Given up before the deadline, at the last conflict: the next wait would not have fitted.
      const last = attempts.at(-1) as number;
      expect(gaveUpAt).toBe(last);
      expect(last).toBeLessThan(deadline);
      expect(deadline - last).toBeLessThanOrEqual(20 * 2 ** (attempts.length - 1));
    } finally {
      vi.useRealTimers();
    }
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
                reply: { message: { result: {} } },
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

/** An initialize as the route hands it over, from raw JSON (so 1e300 and 2^53 + 2 arrive as JSON.parse reads them). */
function initializeFrom(paramsJson: string) {
  return completeInitialize({ jsonrpc: "2.0", id: 7, method: "initialize", params: JSON.parse(paramsJson) });
}

/** `{"a":{"a":…{}…}}`, `levels` objects deep. */
function nested(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;
}

describe("what a session stores from the client", () => {
  const client = '"clientInfo":{"name":"c","version":"1"}';
  it.each([
    [
      "1e300 in capabilities",
      `{"capabilities":{"sampling":{"budget":1e300}},${client}}`,
      /params\.capabilities\.sampling\.budget is 1e\+300, a number a session cannot store exactly: numbers must be 0 or between 1e-130 and 9007199254740991/,
    ],
    [
      "2^53 + 2 in clientInfo",
      '{"capabilities":{},"clientInfo":{"name":"c","version":"1","build":9007199254740994}}',
      /params\.clientInfo\.build is 9007199254740994, a number a session cannot store exactly/,
    ],
    [
      "a 420 KB clientInfo.name",
      `{"capabilities":{},"clientInfo":{"name":"${"x".repeat(420_000)}","version":"1"}}`,
      /params take more than 65536 bytes as JSON; a session stores at most 65536; the longest string is params\.clientInfo\.name, 420000 characters/,
    ],
    [
      "params nested 3,000 deep",
      `{"capabilities":{"experimental":${nested(3_000)}},${client}}`,
      /params\.capabilities\.experimental\.a\.a.*is nested 21 levels deep, deeper than the 20 a session stores/,
    ],
    [
      "a lone surrogate in a key",
      `{"capabilities":{"\\ud800":{}},${client}}`,
      /the key of params\.capabilities\["\\ud800"\] is not well-formed Unicode/,
    ],
  ])(
    "%s: refused with SessionDataError before any server runs; nothing is stored",
    async (_, params, message) => {
      const store = new MemorySessionStore();
      const { manager, servers } = container(store, { now: Date.now() });
      const refused = await manager.initialize(initializeFrom(params), testContext(5_000)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(SessionDataError);
      expect((refused as Error).message).toMatch(/^Invalid params for initialize: /);
      expect((refused as Error).message).toMatch(message);
      expect(store.size).toBe(0);
      expect(servers).toHaveLength(0);
    },
  );

  it("what real clients send fits, and so does everything up to each limit", async () => {
    const store = new MemorySessionStore();
    const { manager } = container(store, { now: Date.now() });
    const accepted = async (params: Record<string, unknown>) =>
      manager.initialize(
        completeInitialize({ jsonrpc: "2.0", id: 1, method: "initialize", params }),
        testContext(5_000),
      );
    // A generous client: 8 KB of capabilities, a long title, numbers of every storable kind.
    const generous = {
      protocolVersion: "2025-06-18",
      capabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
        experimental: { vendor: { blob: "y".repeat(8_000), limits: [0, -0, 0.1, 1e-130, -(2 ** 53 - 1)] } },
      },
      clientInfo: { name: "Some IDE", title: "Some IDE — MCP client 😀", version: "1.102.3" },
    };
    expect((await accepted(generous)).sessionId).toBeDefined();

    const base = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "", version: "1" } };
    const pad = SESSION_DATA_LIMITS.maxBytes - Buffer.byteLength(JSON.stringify(base));
    const exactly = { ...base, clientInfo: { name: "n".repeat(pad), version: "1" } };
    expect(Buffer.byteLength(JSON.stringify(exactly))).toBe(65_536);
    expect((await accepted(exactly)).sessionId).toBeDefined();
    const oneMore = { ...base, clientInfo: { name: "n".repeat(pad + 1), version: "1" } };
    await expect(accepted(oneMore)).rejects.toThrow(
      /params take more than 65536 bytes as JSON; a session stores at most 65536; the longest string is params\.clientInfo\.name/,
    );
    // Escapes count as sent: the exact size decides.
    const escaped = { ...base, clientInfo: { name: `${"n".repeat(pad - 1)}\n`, version: "1" } };
    await expect(accepted(escaped)).rejects.toThrow(
      /params take 65537 bytes as JSON; a session stores at most 65536/,
    );

    const deepest = JSON.parse(`{"capabilities":{"experimental":${nested(18)}},${client}}`);
    expect((await accepted(deepest)).sessionId).toBeDefined();
    const tooDeep = JSON.parse(`{"capabilities":{"experimental":${nested(19)}},${client}}`);
    await expect(accepted(tooDeep)).rejects.toThrow(/nested 21 levels deep/);
    await expect(accepted({ ...base, capabilities: { x: { tiny: 1e-131 } } })).rejects.toThrow(
      /params\.capabilities\.x\.tiny is 1e-131/,
    );
    expect(store.size).toBe(3);
  });

  test.prop([fc.jsonValue({ maxDepth: 6, stringUnit: "grapheme" })], { numRuns: 300 })(
    "the size check agrees with the exact JSON size, to the byte",
    (generated) => {
      // Numbers a session cannot store are another check's business: keep them small here.
      const value: unknown = JSON.parse(JSON.stringify(generated), (_, item: unknown) =>
        typeof item === "number" ? Math.trunc(item % 1e6) : item,
      );
      const exact = Buffer.byteLength(JSON.stringify(value));
      expect(describeUnstorable(value, { maxBytes: exact, maxDepth: 100 })).toBeUndefined();
      expect(describeUnstorable(value, { maxBytes: exact - 1, maxDepth: 100 })).toMatch(/^params take /);
    },
  );
});

const setLevel = (level: string) => ({
  jsonrpc: "2.0",
  id: 3,
  method: "logging/setLevel",
  params: { level },
});

describe("a change whose write fails", () => {
  it("is not kept by the warm server: the next request is served as the record says; the retried change is stored once", async () => {
    const store = new FailingStore();
    const { manager, servers } = container(store, { now: Date.now() });
    const id = await start(manager);
    const first = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    expect(await send(first, setLevel("error"))).toMatchObject({ reply: { message: { result: {} } } });
    expect(await ignores(servers[0], "warning")).toBe(true);

    store.failures = 1;
    await expect(manager.persist(first, testContext(5_000))).rejects.toBeInstanceOf(SessionStoreError);
    expect(await store.get(id)).toMatchObject({ logLevel: undefined, version: 1 });

    // The next request on this container: a server rebuilt from the record, which has no level.
    const next = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    expect(servers).toHaveLength(2);
    expect(next.bridge).not.toBe(first.bridge);
    expect(await ignores(servers[1], "warning")).toBe(false);
    await manager.persist(next, testContext(5_000));
    expect(store.writes).toHaveLength(0);

    // The client retries; the store works again.
    await send(next, setLevel("error"));
    await manager.persist(next, testContext(5_000));
    expect(await store.get(id)).toMatchObject({ logLevel: "error", version: 2 });
    // Cleared once stored: nothing is written twice, and the server stays warm and current.
    await manager.persist(next, testContext(5_000));
    expect(store.writes).toStrictEqual([{ logLevel: "error", updatedAt: expect.any(Number) }]);
    expect(await manager.resume(id, testContext(5_000))).toBe(next);
    expect(servers).toHaveLength(2);
    expect(await ignores(servers[1], "warning")).toBe(true);
  });

  it("stays pending until a write succeeds: another request served by that server stores it", async () => {
    const store = new FailingStore();
    const { manager } = container(store, { now: Date.now() });
    const id = await start(manager);
    const onA = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    const onB = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    expect(onB).toBe(onA);
    await send(onA, setLevel("critical"));
    store.failures = 1;
    await expect(manager.persist(onA, testContext(5_000))).rejects.toBeInstanceOf(SessionStoreError);
    // B was served by the server that accepted the level: its request stores it.
    await manager.persist(onB, testContext(5_000));
    expect(await store.get(id)).toMatchObject({ logLevel: "critical", version: 2 });
  });
});

describe("a change that is stored", () => {
  it("is not erased by a request that starts before it is written", async () => {
    const store = new MemorySessionStore();
    const { manager, servers } = container(store, { now: Date.now() });
    const id = await start(manager);
    const onA = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    await send(onA, setLevel("error"));
    const onB = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    await manager.persist(onA, testContext(5_000));
    await manager.persist(onB, testContext(5_000));
    expect(await store.get(id)).toMatchObject({ logLevel: "error", version: 2 });
    // The warm server and the record agree.
    await manager.resume(id, testContext(5_000));
    expect(servers).toHaveLength(1);
    expect(await ignores(servers[0], "warning")).toBe(true);
  });

  it("a level accepted while another is being written is stored by its own request", async () => {
    let release = () => {};
    class GatedStore extends MemorySessionStore {
      gate: Promise<void> | undefined;
      override async update(
        id: string,
        version: number,
        changes: SessionChanges,
        bump: boolean,
      ): Promise<UpdateResult> {
        await this.gate;
        return super.update(id, version, changes, bump);
      }
    }
    const store = new GatedStore();
    const { manager, servers } = container(store, { now: Date.now() });
    const id = await start(manager);
    const session = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    await send(session, setLevel("error"));
    store.gate = new Promise((resolve) => {
      release = resolve;
    });
    const writing = manager.persist(session, testContext(5_000));
    await send(session, setLevel("critical"));
    release();
    await writing;
    expect(await store.get(id)).toMatchObject({ logLevel: "error", version: 2 });
    await manager.persist(session, testContext(5_000));
    expect(await store.get(id)).toMatchObject({ logLevel: "critical", version: 3 });
    await manager.resume(id, testContext(5_000));
    expect(servers).toHaveLength(1);
    expect(await ignores(servers[0], "error")).toBe(true);
  });

  it("is stored even when the container let its server go during the request", async () => {
    const store = new MemorySessionStore();
    const { manager, servers } = container(store, { now: Date.now() }, 1);
    const id = await start(manager);
    const session = (await manager.resume(id, testContext(5_000))) as ActiveSession;
    await send(session, setLevel("error"));
    await start(manager); // a second session takes the only warm place
    await manager.persist(session, testContext(5_000));
    expect(await store.get(id)).toMatchObject({ logLevel: "error", version: 2 });
    await manager.resume(id, testContext(5_000));
    expect(await ignores(servers.at(-1), "warning")).toBe(true);
  });
});

function stored(overrides: Partial<SessionRecord> = {}, paramsBytes = 0): SessionRecord {
  return {
    sessionId: crypto.randomUUID(),
    initializeParams: { clientInfo: { name: "p".repeat(paramsBytes), version: "1" } },
    protocolVersion: "2025-06-18",
    logLevel: undefined,
    principal: undefined,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    expiresAt: 1_700_000_000 + TTL,
    version: 1,
    ...overrides,
  };
}

describe("memory store bounds", () => {
  it("holds at most maxSessions: the least recently used goes first, a read or a write counting as use", async () => {
    const clock = { now: 1_700_000_000_000 };
    const store = new MemorySessionStore(() => clock.now, { maxSessions: 3 });
    const [a, b, c, d, e] = Array.from({ length: 5 }, () => stored());
    for (const record of [a, b, c]) await store.create(record as SessionRecord);
    await store.get(a?.sessionId as string);
    await store.create(d as SessionRecord); // b is the least recently used
    expect(store.size).toBe(3);
    expect(await store.update(c?.sessionId as string, 1, { logLevel: "info" }, true)).toBe("updated");
    await store.create(e as SessionRecord); // then a: c was just written
    const kept = await Promise.all([a, b, c, d, e].map((r) => store.get(r?.sessionId as string)));
    expect(kept.map((r) => r !== undefined)).toStrictEqual([false, false, true, true, true]);
  });

  it("makes room with expired records first, however recently used, then the least recently used", async () => {
    const clock = { now: 1_700_000_000_000 };
    const store = new MemorySessionStore(() => clock.now, { maxSessions: 4 });
    const live = () => stored({ expiresAt: 1_700_000_000 + 3600 });
    const live1 = live();
    const soon1 = stored({ expiresAt: 1_700_000_000 + 10 });
    const soon2 = stored({ expiresAt: 1_700_000_000 + 20 });
    const live2 = live();
    for (const record of [live1, soon1, soon2, live2]) await store.create(record);
    clock.now += 30_000;
    // The expired ones are now the most recently used.
    await store.get(soon1.sessionId);
    await store.get(soon2.sessionId);
    const fresh = [live(), live(), live()];
    for (const record of fresh) await store.create(record);
    expect(store.size).toBe(4);
    const kept = await Promise.all(
      [soon1, soon2, live1, live2, ...fresh].map(async (r) => (await store.get(r.sessionId)) !== undefined),
    );
    // Both expired records made room first; then live1, the least recently used live one.
    expect(kept).toStrictEqual([false, false, false, true, true, true, true]);
  });

  it("holds at most maxBytes, evicting as many least recently used records as a large one needs", async () => {
    const store = new MemorySessionStore(() => 1_700_000_000_000, { maxBytes: 10_000 });
    const small = Array.from({ length: 8 }, () => stored({}, 800));
    for (const record of small) await store.create(record);
    const sizeOf = (record: SessionRecord) => Buffer.byteLength(JSON.stringify(record));
    expect(store.bytes).toBe(small.reduce((sum, r) => sum + sizeOf(r), 0));
    expect(store.size).toBe(8);
    const large = stored({}, 3_000);
    await store.create(large);
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    // Exactly as many of the oldest as needed made room; the rest are untouched.
    const each = sizeOf(small[0] as SessionRecord);
    const needed = Math.ceil((8 * each + sizeOf(large) - 10_000) / each);
    const left = await Promise.all(small.map(async (r) => (await store.get(r.sessionId)) !== undefined));
    expect(needed).toBeGreaterThanOrEqual(2);
    expect(left).toStrictEqual(small.map((_, index) => index >= needed));
    await expect(store.create(stored({}, 20_000))).rejects.toBeInstanceOf(SessionDataError);
  });

  it("by default stops at 10,000 sessions and 8 MiB", async () => {
    expect(MEMORY_STORE_LIMITS).toStrictEqual({ maxSessions: 10_000, maxBytes: 8 * 1024 * 1024 });
    const store = new MemorySessionStore();
    const first = stored({ expiresAt: Math.floor(Date.now() / 1000) + TTL });
    await store.create(first);
    for (let i = 0; i < 10_000; i++) await store.create(stored({ expiresAt: first.expiresAt }));
    expect(store.size).toBe(10_000);
    expect(await store.get(first.sessionId)).toBeUndefined();
    const large = new MemorySessionStore();
    for (let i = 0; i < 200; i++) await large.create(stored({ expiresAt: first.expiresAt }, 60_000));
    expect(large.bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(large.size).toBeLessThan(200);
  });

  it("an evicted session is unknown: resume finds nothing and drops this container's server for it", async () => {
    const clock = { now: Date.now() };
    const store = new MemorySessionStore(() => clock.now, { maxSessions: 2 });
    const { manager } = container(store, clock);
    const evicted = await start(manager);
    await start(manager);
    await start(manager);
    expect(manager.warmCount).toBe(3);
    expect(await manager.resume(evicted, testContext(5_000))).toBeUndefined();
    expect(manager.warmCount).toBe(2);
  });
});
