import type { RequestContext } from "../context.js";

/** Everything needed to rebuild a session's MCP server on any container. */
export interface SessionRecord {
  sessionId: string;
  /** The `initialize` params as the server received them (partial params already completed). */
  initializeParams: Record<string, unknown>;
  /** Negotiated protocol version (from the initialize reply). */
  protocolVersion: string;
  /** Level set by `logging/setLevel`, if any. */
  logLevel: string | undefined;
  /** The authenticated caller that created the session (IAM user ARN or JWT `sub`), if any. */
  principal: string | undefined;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds of the last write. */
  updatedAt: number;
  /** Epoch SECONDS after which the session is gone (the DynamoDB TTL attribute). */
  expiresAt: number;
  /** Bumped by every change of MCP state (not by expiry refreshes); writes are conditional on it. */
  version: number;
}

/** The fields an update may change. */
export type SessionChanges = Partial<Pick<SessionRecord, "logLevel" | "expiresAt" | "updatedAt">>;

export type UpdateResult = "updated" | "conflict" | "missing";

/** A failure of the store itself (unreachable, throttled, too slow for the deadline…): answered 503, never 404. */
export class SessionStoreError extends Error {
  override name = "SessionStoreError";
}

/**
 * What the client sent cannot be stored as it is (too large, nested too deep, a number the store would not
 * keep exactly…): a client error, answered 400 with JSON-RPC -32602 and this message, never 503.
 */
export class SessionDataError extends Error {
  override name = "SessionDataError";
}

/**
 * Where sessions live. Every call takes the request's context: a store that cannot answer before its
 * deadline (or once its signal aborts) throws SessionStoreError rather than keep the request waiting.
 */
export interface SessionStore {
  /**
   * Stores a new record; throws SessionStoreError if the id exists already, SessionDataError if the record
   * holds what the store cannot keep exactly (see limits.ts).
   */
  create(record: SessionRecord, context: RequestContext): Promise<void>;
  /** A strongly consistent read; undefined when there is no such record (expired ones included: the caller checks expiry). */
  get(sessionId: string, context: RequestContext): Promise<SessionRecord | undefined>;
  /**
   * Applies `changes` only if the stored version is still `expectedVersion`. `bumpVersion` says
   * whether MCP state changed (expiry refreshes do not bump it, so warm containers need not rebuild).
   */
  update(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
    context: RequestContext,
  ): Promise<UpdateResult>;
  /** Removes the record; false when there was none. */
  delete(sessionId: string, context: RequestContext): Promise<boolean>;
}
