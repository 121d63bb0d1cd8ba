import type { SessionChanges, SessionRecord } from "./store.js";

/**
 * The session record as every store writes, reads and changes it: one field list, one check of what was
 * read, one rule for expiry. The stores (memoryStore.ts, fileStore.ts, dynamoStore.ts) differ only in
 * their medium; the rules they share on the way in are in baseStore.ts.
 */

/** A record as read back from a medium: the record, or what is wrong with it. */
export type ParsedRecord = { record: SessionRecord } | { problem: string };

/**
 * The ids a store takes as keys. The server mints UUIDs (the manager refuses any other id before asking
 * a store); a store still refuses anything with a dot, a slash or a strange character, which could
 * otherwise become a path (a session file) or collide with keys of another kind (the table's `stream#…`).
 */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function isSafeSessionId(sessionId: string): boolean {
  return SAFE_ID.test(sessionId);
}

/** The fields an update may change (anything else in `changes` is ignored, in every store). */
export const CHANGE_FIELDS = [
  "logLevel",
  "expiresAt",
  "updatedAt",
] as const satisfies readonly (keyof SessionChanges)[];

/** The record an update writes: `changes` applied, the version bumped when MCP state changed. */
export function applyChanges(
  current: SessionRecord,
  changes: SessionChanges,
  bumpVersion: boolean,
): SessionRecord {
  const updated: SessionRecord = { ...current, version: current.version + (bumpVersion ? 1 : 0) };
  for (const field of CHANGE_FIELDS) {
    if (Object.hasOwn(changes, field)) Object.assign(updated, { [field]: changes[field] });
  }
  return updated;
}

/** Whether the record has expired at `nowMs` (epoch ms; `expiresAt` is in epoch seconds, the TTL attribute). */
export function hasExpired(record: SessionRecord, nowMs: number): boolean {
  return record.expiresAt * 1000 <= nowMs;
}

/** The record as JSON (toStored), and its UTF-8 bytes: what the stores' size bounds measure. */
export interface Serialised {
  text: string;
  bytes: number;
}

export function serialise(record: SessionRecord): Serialised {
  const text = JSON.stringify(toStored(record));
  return { text, bytes: Buffer.byteLength(text) };
}

/** The record as written: its fields in a fixed order, nothing else the object may carry. */
export function toStored(record: SessionRecord): SessionRecord {
  return {
    sessionId: record.sessionId,
    initializeParams: record.initializeParams,
    protocolVersion: record.protocolVersion,
    logLevel: record.logLevel,
    principal: record.principal,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    expiresAt: record.expiresAt,
    version: record.version,
  };
}

/** The record in a session file's text, or what is wrong with it. */
export function parseRecord(text: string, sessionId: string): ParsedRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: "not JSON" };
  }
  return recordFrom(value, sessionId);
}

/** The session record `value` (parsed JSON, a DynamoDB item) holds under `sessionId`, or what is wrong with it. */
export function recordFrom(value: unknown, sessionId: string): ParsedRecord {
  if (!isObject(value)) return { problem: "not a session record (not an object)" };
  const { initializeParams, protocolVersion, logLevel, principal, createdAt, updatedAt, expiresAt, version } =
    value;
  const wrong =
    value.sessionId !== sessionId
      ? "sessionId"
      : !isObject(initializeParams)
        ? "initializeParams"
        : typeof protocolVersion !== "string"
          ? "protocolVersion"
          : !isOptionalString(logLevel)
            ? "logLevel"
            : !isOptionalString(principal)
              ? "principal"
              : !isFiniteNumber(createdAt)
                ? "createdAt"
                : !isFiniteNumber(updatedAt)
                  ? "updatedAt"
                  : !isFiniteNumber(expiresAt)
                    ? "expiresAt"
                    : !Number.isSafeInteger(version)
                      ? "version"
                      : undefined;
  if (wrong !== undefined) return { problem: `not a session record (its ${wrong} is missing or wrong)` };
  return {
    record: {
      sessionId,
      initializeParams: initializeParams as Record<string, unknown>,
      protocolVersion: protocolVersion as string,
      logLevel: logLevel as string | undefined,
      principal: principal as string | undefined,
      createdAt: createdAt as number,
      updatedAt: updatedAt as number,
      expiresAt: expiresAt as number,
      version: version as number,
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

function isFiniteNumber(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value);
}
