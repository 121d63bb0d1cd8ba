import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type RequestContext, timeLeft, withMargin } from "../context.js";
import { SESSION_REFRESH_BUDGET_MS } from "../deadline.js";
import type { Bridge } from "../mcp/bridge/bridge.js";
import { ErrorCode, type JSONRPCRequest, type Reply } from "../protocol/jsonrpc.js";
import { type Backoff, backoffDelay } from "../util/backoff.js";
import { Lru } from "../util/lru.js";
import { checkInitializeParams } from "./limits.js";
import { hasExpired } from "./record.js";
import { type SessionChanges, type SessionRecord, type SessionStore, SessionStoreError } from "./store.js";

export interface SessionManagerOptions {
  store: SessionStore;
  ttlSeconds: number;
  /** Builds a fresh MCP server attached to a new bridge. */
  openBridge: () => Promise<Bridge>;
  /** How many sessions keep a live server in this container. */
  warmLimit?: number;
  /** Expiry refreshes are written at most this often per session. */
  refreshIntervalMs?: number;
  /** Epoch milliseconds of the session clock: record timestamps and expiry (tests move it). */
  now?: () => number;
  /** How often a conflicting write is re-read and re-applied (while the deadline allows) before giving up with 503. */
  maxWriteAttempts?: number;
  /** Where a WARN line goes about what failed without failing the request (an expiry not refreshed). */
  warn?: (message: string, fields: Record<string, unknown>, context: RequestContext) => void;
}

/** A session ready to serve one request in this container. */
export interface ActiveSession {
  id: string;
  bridge: Bridge;
}

interface Warm extends ActiveSession {
  version: number;
  /**
   * A `logging/setLevel` the server accepted and the record does not have yet. Cleared only once stored;
   * when it cannot be stored, the server holding it is dropped, so no request is served by a server that
   * differs from the record.
   */
  pendingLogLevel: string | undefined;
}

const DEFAULT_WARM_LIMIT = 64;
const DEFAULT_REFRESH_INTERVAL_MS = 60_000;
const DEFAULT_WRITE_ATTEMPTS = 5;
/**
 * Every session id this server mints (randomUUID: a version 4 UUID, lower case). Anything else is no
 * session of ours, whatever the store holds under that key: the sessions table also keeps stream events
 * and cancellations under keys of their own (`stream#…`, `cancel#…`).
 */
const SESSION_ID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Between re-reads of a record another container changed at the same moment. */
const CONFLICT_BACKOFF: Backoff = { baseMs: 20, capMs: 500 };

/**
 * Sessions that survive cold starts: the record in the store is the truth; a warm server in this
 * container is only a cache of it, checked against the record (version and expiry) on every request
 * and rebuilt from it ("rehydrated") when missing or stale. Every store call and every replayed
 * request is bounded by the request's context.
 */
export class SessionManager {
  /** The warm servers, a bounded LRU: memory stays flat however many sessions pass through a container. */
  private readonly warm: Lru<string, Warm>;
  private readonly now: () => number;
  private readonly refreshIntervalMs: number;
  private readonly maxWriteAttempts: number;

  constructor(private readonly options: SessionManagerOptions) {
    this.warm = new Lru<string, Warm>(options.warmLimit ?? DEFAULT_WARM_LIMIT, (session) => {
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
   * Runs `initialize` on a fresh server and, when it succeeds, stores a new session for it, bound to
   * the context's principal. Returns the reply and, on success, the new session id. Nothing is stored
   * for a failed initialize. Params a session cannot store (too large, too deep, inexact numbers: see
   * limits.ts) are refused with SessionDataError before any server runs.
   */
  async initialize(
    request: JSONRPCRequest,
    context: RequestContext,
  ): Promise<{ reply: Reply; sessionId: string | undefined }> {
    checkInitializeParams(request.params ?? {});
    const bridge = await this.options.openBridge();
    const reply = await bridge.request(request, context);
    const { message } = reply;
    if (!("result" in message)) {
      await bridge.close();
      return { reply, sessionId: undefined };
    }
    const now = this.now();
    const record: SessionRecord = {
      sessionId: randomUUID(),
      initializeParams: request.params ?? {},
      protocolVersion: String(message.result.protocolVersion),
      logLevel: undefined,
      principal: context.principal,
      createdAt: now,
      updatedAt: now,
      expiresAt: this.expiryFrom(now),
      version: 1,
    };
    try {
      await this.options.store.create(record, context);
    } catch (error) {
      await bridge.close();
      throw error;
    }
    context.debug?.("session created", { session_id_prefix: record.sessionId.slice(0, 8) });
    this.remember(record, bridge);
    return { reply, sessionId: record.sessionId };
  }

  /**
   * The session for `id`, served by a warm server when this container has a current one, else by a
   * server rebuilt from the record. Undefined when the session does not exist for the context's
   * principal: unknown, expired, deleted, or created by another principal.
   */
  async resume(id: string, context: RequestContext): Promise<ActiveSession | undefined> {
    if (!isSessionIdForm(id)) return undefined;
    const record = await this.options.store.get(id, context);
    if (!record) {
      // Deleted elsewhere, or evicted from a bounded store: this container's server for it is no use.
      this.forget(id);
      return undefined;
    }
    if (record.principal !== context.principal) return undefined;
    if (this.isExpired(record)) {
      this.forget(id);
      await this.options.store.delete(id, context).catch(() => undefined);
      return undefined;
    }
    let session = this.current(id, record);
    context.debug?.("session loaded", { session_id_prefix: id.slice(0, 8), warm: session !== undefined });
    if (!session) {
      const rebuilt = await this.rehydrate(record, context);
      context.debug?.("session rehydrated", { session_id_prefix: id.slice(0, 8) });
      // A concurrent request may have rebuilt it meanwhile: keep that one, whose bridge may be in use.
      session = this.current(id, record);
      if (session) await rebuilt.close();
      else session = this.remember(record, rebuilt);
    }
    await this.refreshExpiry(record, context);
    return session;
  }

  /**
   * Stores what the request changed in the session (its log level), re-applying on conflicting writes.
   * `session` is what `resume` returned: its change is stored even if this container let the server go
   * meanwhile. A change that cannot be stored is not kept by the warm server either: the server is
   * dropped, and the next request rebuilds it from the record.
   */
  async persist(session: ActiveSession, context: RequestContext): Promise<void> {
    const warm = session as Warm;
    const level = warm.pendingLogLevel;
    if (level === undefined) return;
    const changes: SessionChanges = { logLevel: level, updatedAt: this.now() };
    let written: { version: number; reapplied: boolean } | undefined;
    try {
      written = await this.change(warm.id, warm.version, changes, true, context);
      context.debug?.("session written", { session_id_prefix: warm.id.slice(0, 8), log_level: level });
    } catch (error) {
      this.forgetServer(warm);
      throw error;
    }
    // Stored: cleared, unless the server accepted another level meanwhile (its own request stores that one).
    if (warm.pendingLogLevel === level) warm.pendingLogLevel = undefined;
    // Re-applied over another container's change (or the session is gone): this server lacks that change.
    if (written?.reapplied === false) warm.version = written.version;
    else this.forgetServer(warm);
  }

  /**
   * Whether the session `id` exists for the context's principal (not expired, not another caller's),
   * read from the store without building its server: enough to let its client resume a stream.
   */
  async isOpen(id: string, context: RequestContext): Promise<boolean> {
    if (!isSessionIdForm(id)) return false;
    const record = await this.options.store.get(id, context);
    return record !== undefined && record.principal === context.principal && !this.isExpired(record);
  }

  /** Ends the session everywhere. False when there was no such session for the context's principal. */
  async delete(id: string, context: RequestContext): Promise<boolean> {
    if (!isSessionIdForm(id)) return false;
    const record = await this.options.store.get(id, context);
    this.forget(id);
    if (!record || record.principal !== context.principal || this.isExpired(record)) return false;
    return this.options.store.delete(id, context);
  }

  private async rehydrate(record: SessionRecord, context: RequestContext): Promise<Bridge> {
    context.report?.rehydrated();
    const bridge = await this.options.openBridge();
    const replay = async (method: string, params: Record<string, unknown>) => {
      const { message: reply } = await bridge.request({ jsonrpc: "2.0", id: 0, method, params }, context);
      if (!("result" in reply)) {
        await bridge.close();
        // Out of time is not a fault: the client may retry on a container with more of it.
        if (reply.error.code === ErrorCode.RequestTimeout) {
          throw new SessionStoreError("rehydrating the session ran out of time");
        }
        throw new Error(`rehydrating session: ${method} was refused (${reply.error.message})`);
      }
    };
    await replay("initialize", record.initializeParams);
    await bridge.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (record.logLevel !== undefined) await replay("logging/setLevel", { level: record.logLevel });
    return bridge;
  }

  /** This container's warm session for the record, if it is up to date; a stale one is dropped. */
  private current(id: string, record: SessionRecord): Warm | undefined {
    const session = this.warm.get(id);
    if (session && session.version !== record.version) this.forget(id);
    return session?.version === record.version ? session : undefined;
  }

  private remember(record: SessionRecord, bridge: Bridge): Warm {
    const session: Warm = {
      id: record.sessionId,
      bridge,
      version: record.version,
      pendingLogLevel: undefined,
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

  /** Drops this server, if it is still the one this container keeps for its session (not a newer rebuild). */
  private forgetServer(session: Warm): void {
    if (this.warm.peek(session.id) === session) this.warm.delete(session.id);
  }

  private isExpired(record: SessionRecord): boolean {
    return hasExpired(record, this.now());
  }

  private expiryFrom(now: number): number {
    return Math.floor(now / 1000) + this.options.ttlSeconds;
  }

  /**
   * Sliding expiry, written at most once per refresh interval; it does not bump the version. Best effort,
   * within REFRESH_BUDGET_MS: a refresh that fails is logged and the request goes on (the session keeps
   * its current expiry, and its next request tries again).
   */
  private async refreshExpiry(record: SessionRecord, context: RequestContext): Promise<void> {
    const now = this.now();
    const refreshedAt = (record.expiresAt - this.options.ttlSeconds) * 1000;
    if (now - refreshedAt < this.refreshIntervalMs) return;
    const budget = withMargin(context, Math.max(0, timeLeft(context) - SESSION_REFRESH_BUDGET_MS));
    try {
      const changes = { expiresAt: this.expiryFrom(now), updatedAt: now };
      await this.change(record.sessionId, record.version, changes, false, budget);
    } catch (error) {
      this.options.warn?.(
        "session expiry not refreshed; the session keeps its expiry and its next request tries again",
        {
          session_id_prefix: record.sessionId.slice(0, 8),
          expires_at: new Date(record.expiresAt * 1000).toISOString(),
          reason: error instanceof SessionStoreError ? error.message : describeFailure(error),
        },
        context,
      );
    }
  }

  /**
   * A write conditional on the record's version; on conflict the record is re-read and the change
   * re-applied after a jittered backoff, a bounded number of times and never past the deadline.
   * Undefined when the session is gone.
   */
  private async change(
    id: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
    context: RequestContext,
  ): Promise<{ version: number; reapplied: boolean } | undefined> {
    let version: number | undefined = expectedVersion;
    for (let attempt = 0; attempt < this.maxWriteAttempts; attempt++) {
      if (version === undefined) version = (await this.options.store.get(id, context))?.version;
      if (version === undefined) return undefined;
      const result = await this.options.store.update(id, version, changes, bumpVersion, context);
      if (result === "updated")
        return { version: bumpVersion ? version + 1 : version, reapplied: attempt > 0 };
      if (result === "missing") return undefined;
      version = undefined;
      const delay = backoffDelay(attempt, CONFLICT_BACKOFF);
      if (attempt + 1 >= this.maxWriteAttempts || timeLeft(context) <= delay) break;
      try {
        await sleep(delay, undefined, { signal: context.signal });
      } catch {
        break;
      }
    }
    throw new SessionStoreError(`session ${id}: too many concurrent writes`);
  }
}

/** Whether `id` has the form of the session ids this server mints (see SESSION_ID_FORM). */
function isSessionIdForm(id: string): boolean {
  return SESSION_ID_FORM.test(id);
}

/** A failure that is not the store's, told by its name only: its message could hold anything. */
function describeFailure(error: unknown): string {
  return error instanceof Error
    ? `${error.name} (not a store failure)`
    : "a thrown value that is not an Error";
}
