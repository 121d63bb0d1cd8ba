import type { SessionRecord } from "./store.js";

/** A session file's text as read: its record, or what is wrong with it. */
export type ParsedRecord = { record: SessionRecord } | { problem: string };

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
