import { randomUUID } from "node:crypto";
import type { Bridge } from "../bridge/bridge.js";
import type { JSONRPCReply, JSONRPCRequest } from "../bridge/jsonrpc.js";
import type { ServerState } from "../server.js";
import { type SessionChanges, type SessionRecord, type SessionStore, SessionStoreError } from "./store.js";
import { WarmCache } from "./warmCache.js";

export interface SessionManagerOptions {
  store: SessionStore;
  ttlSeconds: number;
  /** Builds a fresh MCP server reading `state`, attached to a new bridge. */
  openBridge: (state: ServerState) => Promise<Bridge>;
  /** How many sessions keep a live server in this container. */
  warmLimit?: number;
  /** Expiry refreshes are written at most this often per session. */
  refreshIntervalMs?: number;
  /** Epoch milliseconds (tests move time). */
  now?: () => number;
  /** How often a conflicting write is re-read and re-applied before giving up with 503. */
  maxWriteAttempts?: number;
}

/** A session ready to serve one request in this container. */
export interface ActiveSession {
  id: string;
  bridge: Bridge;
  state: ServerState;
}

interface Warm extends ActiveSession {
  version: number;
  /** A `logging/setLevel` the server accepted during the current request, to be stored. */
  pendingLogLevel: string | undefined;
  /** `state.data` as last stored, to see whether a request changed it. */
  storedData: string;
}

/** The spec's form of a session id: visible ASCII only; and a length no honest client exceeds. */
export function isWellFormedSessionId(id: string): boolean {
  return id.length > 0 && id.length <= 128 && /^[\x21-\x7E]+$/.test(id);
}

export const DEFAULT_WARM_LIMIT = 64;
const DEFAULT_REFRESH_INTERVAL_MS = 60_000;
const DEFAULT_WRITE_ATTEMPTS = 5;

/**
 * Sessions that survive cold starts: the record in the store is the truth; a warm server in this
 * container is only a cache of it, checked against the record (version and expiry) on every request
 * and rebuilt from it ("rehydrated") when missing or stale.
 */
export class SessionManager {
  private readonly warm: WarmCache<Warm>;
  private readonly now: () => number;
  private readonly refreshIntervalMs: number;
  private readonly maxWriteAttempts: number;

  constructor(private readonly options: SessionManagerOptions) {
    this.warm = new WarmCache(options.warmLimit ?? DEFAULT_WARM_LIMIT, (session) => {
      void session.bridge.close().catch(() => undefined);
    });
    this.now = options.now ?? Date.now;
    this.refreshIntervalMs = options.refreshIntervalMs ?? DEFAULT_REFRESH_INTERVAL_MS;
    this.maxWriteAttempts = options.maxWriteAttempts ?? DEFAULT_WRITE_ATTEMPTS;
  }

  get warmCount(): number {
    return this.warm.size;
  }

  /**
   * Runs `initialize` on a fresh server and, when it succeeds, stores a new session for it. Returns
   * the reply and, on success, the new session id. Nothing is stored for a failed initialize.
   */
  async initialize(
    request: JSONRPCRequest,
    principal: string | undefined,
    deadlineAt: number,
  ): Promise<{ reply: JSONRPCReply; sessionId: string | undefined }> {
    const state: ServerState = { deadlineAt, data: {} };
    const bridge = await this.options.openBridge(state);
    const reply = await bridge.request(request, deadlineAt);
    if (!("result" in reply)) {
      await bridge.close();
      return { reply, sessionId: undefined };
    }
    const now = this.now();
    const record: SessionRecord = {
      sessionId: randomUUID(),
      initializeParams: request.params ?? {},
      protocolVersion: String(reply.result.protocolVersion),
      logLevel: undefined,
      data: {},
      principal,
      createdAt: now,
      updatedAt: now,
      expiresAt: this.expiryFrom(now),
      version: 1,
    };
    try {
      await this.options.store.create(record);
    } catch (error) {
      await bridge.close();
      throw error;
    }
    this.remember(record, bridge, state);
    return { reply, sessionId: record.sessionId };
  }

  /**
   * The session for `id`, served by a warm server when this container has a current one, else by a
   * server rebuilt from the record. Undefined when the session does not exist for this caller:
   * unknown, expired, deleted, or created by another principal.
   */
  async resume(
    id: string,
    principal: string | undefined,
    deadlineAt: number,
  ): Promise<ActiveSession | undefined> {
    const record = await this.options.store.get(id);
    if (!record || record.principal !== principal) return undefined;
    if (this.isExpired(record)) {
      this.forget(id);
      await this.options.store.delete(id).catch(() => undefined);
      return undefined;
    }
    let session = this.current(id, record);
    if (!session) {
      const rebuilt = await this.rehydrate(record, deadlineAt);
      // A concurrent request may have rebuilt it meanwhile: keep that one, whose bridge may be in use.
      session = this.current(id, record);
      if (session) await rebuilt.bridge.close();
      else session = this.remember(record, rebuilt.bridge, rebuilt.state);
    }
    session.state.deadlineAt = deadlineAt;
    session.pendingLogLevel = undefined;
    await this.refreshExpiry(record);
    return session;
  }

  /** Stores what the request changed in the session (log level, tools' data), re-applying on conflicting writes. */
  async persist(session: ActiveSession): Promise<void> {
    const warm = this.warm.get(session.id);
    if (!warm) return;
    const changes: SessionChanges = {};
    if (warm.pendingLogLevel !== undefined) changes.logLevel = warm.pendingLogLevel;
    const data = JSON.stringify(warm.state.data);
    if (data !== warm.storedData) changes.data = JSON.parse(data);
    if (Object.keys(changes).length === 0) return;
    warm.pendingLogLevel = undefined;
    warm.storedData = data;
    const written = await this.change(session.id, warm.version, { ...changes, updatedAt: this.now() }, true);
    // Re-applied over another container's change: this server lacks that change, so rebuild it next time.
    if (written?.reapplied === false) warm.version = written.version;
    else this.forget(session.id);
  }

  /** Ends the session everywhere. False when there was no such session for this caller. */
  async delete(id: string, principal: string | undefined): Promise<boolean> {
    const record = await this.options.store.get(id);
    this.forget(id);
    if (!record || record.principal !== principal || this.isExpired(record)) return false;
    return this.options.store.delete(id);
  }

  private async rehydrate(
    record: SessionRecord,
    deadlineAt: number,
  ): Promise<{ bridge: Bridge; state: ServerState }> {
    const state: ServerState = { deadlineAt, data: structuredClone(record.data) };
    const bridge = await this.options.openBridge(state);
    const replay = async (method: string, params: Record<string, unknown>) => {
      const reply = await bridge.request({ jsonrpc: "2.0", id: 0, method, params }, deadlineAt);
      if (!("result" in reply)) {
        await bridge.close();
        throw new Error(`rehydrating session: ${method} was refused (${reply.error.message})`);
      }
    };
    await replay("initialize", record.initializeParams);
    await bridge.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (record.logLevel !== undefined) await replay("logging/setLevel", { level: record.logLevel });
    return { bridge, state };
  }

  /** This container's warm session for the record, if it is up to date; a stale one is dropped. */
  private current(id: string, record: SessionRecord): Warm | undefined {
    const session = this.warm.get(id);
    if (session && session.version !== record.version) this.forget(id);
    return session?.version === record.version ? session : undefined;
  }

  private remember(record: SessionRecord, bridge: Bridge, state: ServerState): Warm {
    const session: Warm = {
      id: record.sessionId,
      bridge,
      state,
      version: record.version,
      pendingLogLevel: undefined,
      storedData: JSON.stringify(state.data),
    };
    bridge.observe((request, reply) => {
      if (
        request.method === "logging/setLevel" &&
        "result" in reply &&
        typeof request.params?.level === "string"
      ) {
        session.pendingLogLevel = request.params.level;
      }
    });
    this.warm.set(record.sessionId, session);
    return session;
  }

  private forget(id: string): void {
    this.warm.delete(id);
  }

  private isExpired(record: SessionRecord): boolean {
    return record.expiresAt * 1000 <= this.now();
  }

  private expiryFrom(now: number): number {
    return Math.floor(now / 1000) + this.options.ttlSeconds;
  }

  /** Sliding expiry, written at most once per refresh interval; it does not bump the version. */
  private async refreshExpiry(record: SessionRecord): Promise<void> {
    const now = this.now();
    const refreshedAt = (record.expiresAt - this.options.ttlSeconds) * 1000;
    if (now - refreshedAt < this.refreshIntervalMs) return;
    await this.change(
      record.sessionId,
      record.version,
      { expiresAt: this.expiryFrom(now), updatedAt: now },
      false,
    );
  }

  /**
   * A write conditional on the record's version; on conflict the record is re-read and the change
   * re-applied, a bounded number of times. Undefined when the session is gone.
   */
  private async change(
    id: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
  ): Promise<{ version: number; reapplied: boolean } | undefined> {
    let version: number | undefined = expectedVersion;
    for (let attempt = 0; attempt < this.maxWriteAttempts; attempt++) {
      if (version === undefined) version = (await this.options.store.get(id))?.version;
      if (version === undefined) return undefined;
      const result = await this.options.store.update(id, version, changes, bumpVersion);
      if (result === "updated")
        return { version: bumpVersion ? version + 1 : version, reapplied: attempt > 0 };
      if (result === "missing") return undefined;
      version = undefined;
    }
    throw new SessionStoreError(`session ${id}: too many concurrent writes`);
  }
}
