import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import {
  type SessionChanges,
  type SessionRecord,
  type SessionStore,
  SessionStoreError,
  type UpdateResult,
} from "./store.js";

export interface DynamoSessionStoreOptions {
  tableName: string;
  region: string;
  /** Overrides the DynamoDB endpoint (dynalite, DynamoDB Local). */
  endpoint?: string;
}

/** The attributes stored per session: the record's fields, with undefined ones left out. */
const RECORD_FIELDS = [
  "sessionId",
  "initializeParams",
  "protocolVersion",
  "logLevel",
  "data",
  "principal",
  "createdAt",
  "updatedAt",
  "expiresAt",
  "version",
] as const satisfies readonly (keyof SessionRecord)[];

/** The attributes an update may touch, in a fixed order (stable expression names). */
const CHANGE_FIELDS = [
  "logLevel",
  "data",
  "expiresAt",
  "updatedAt",
] as const satisfies readonly (keyof SessionChanges)[];

interface Commands {
  client: DynamoDBDocumentClient;
  lib: typeof import("@aws-sdk/lib-dynamodb");
}

/**
 * Sessions in a DynamoDB table (partition key `sessionId` S, TTL attribute `expiresAt` in epoch
 * seconds). The AWS SDK is imported on first use, so a container without sessions never loads it.
 */
export class DynamoSessionStore implements SessionStore {
  private readonly tableName: string;
  private readonly region: string;
  private readonly endpoint: string | undefined;
  private commands: Promise<Commands> | undefined;

  constructor({ tableName, region, endpoint }: DynamoSessionStoreOptions) {
    this.tableName = tableName;
    this.region = region;
    this.endpoint = endpoint;
  }

  async create(record: SessionRecord): Promise<void> {
    const { client, lib } = await this.load("create");
    try {
      await client.send(
        new lib.PutCommand({
          TableName: this.tableName,
          Item: toItem(record),
          ConditionExpression: "attribute_not_exists(sessionId)",
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error))
        throw new SessionStoreError("session store create failed: the id exists already");
      throw storeError("create", error);
    }
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const { client, lib } = await this.load("get");
    return this.read(client, lib, sessionId, "get");
  }

  async update(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
  ): Promise<UpdateResult> {
    const { client, lib } = await this.load("update");
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ":expected": expectedVersion };
    const set: string[] = [];
    const remove: string[] = [];
    CHANGE_FIELDS.forEach((field, index) => {
      if (!Object.hasOwn(changes, field)) return;
      const value = changes[field];
      names[`#f${index}`] = field;
      if (value === undefined) {
        remove.push(`#f${index}`);
      } else {
        values[`:f${index}`] = value;
        set.push(`#f${index} = :f${index}`);
      }
    });
    if (bumpVersion) {
      values[":one"] = 1;
      set.push("#version = #version + :one");
    }
    names["#version"] = "version";
    const clauses = [
      set.length > 0 ? `SET ${set.join(", ")}` : "",
      remove.length > 0 ? `REMOVE ${remove.join(", ")}` : "",
    ];
    const updateExpression = clauses.filter(Boolean).join(" ");
    const condition = "attribute_exists(sessionId) AND #version = :expected";
    try {
      if (updateExpression === "") {
        // Nothing to write: still answer whether the version matches, with one consistent read.
        const current = await this.read(client, lib, sessionId, "update");
        if (!current) return "missing";
        return current.version === expectedVersion ? "updated" : "conflict";
      }
      await client.send(
        new lib.UpdateCommand({
          TableName: this.tableName,
          Key: { sessionId },
          UpdateExpression: updateExpression,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      );
      return "updated";
    } catch (error) {
      if (error instanceof SessionStoreError) throw error;
      if (!isConditionalCheckFailure(error)) throw storeError("update", error);
      // DynamoDB returns the old item when there is one; emulators may not, so confirm with a read.
      if (hasItem(error)) return "conflict";
      return (await this.read(client, lib, sessionId, "update")) ? "conflict" : "missing";
    }
  }

  async delete(sessionId: string): Promise<boolean> {
    const { client, lib } = await this.load("delete");
    try {
      const result = await client.send(
        new lib.DeleteCommand({ TableName: this.tableName, Key: { sessionId }, ReturnValues: "ALL_OLD" }),
      );
      return result.Attributes !== undefined;
    } catch (error) {
      throw storeError("delete", error);
    }
  }

  private async read(
    client: DynamoDBDocumentClient,
    lib: Commands["lib"],
    sessionId: string,
    operation: string,
  ): Promise<SessionRecord | undefined> {
    try {
      const result = await client.send(
        new lib.GetCommand({ TableName: this.tableName, Key: { sessionId }, ConsistentRead: true }),
      );
      return result.Item === undefined ? undefined : fromItem(result.Item);
    } catch (error) {
      throw storeError(operation, error);
    }
  }

  private load(operation: string): Promise<Commands> {
    this.commands ??= (async () => {
      const [dynamodb, lib] = await Promise.all([
        import("@aws-sdk/client-dynamodb"),
        import("@aws-sdk/lib-dynamodb"),
      ]);
      const base = new dynamodb.DynamoDBClient({
        region: this.region,
        ...(this.endpoint === undefined ? {} : { endpoint: this.endpoint }),
        maxAttempts: 2,
        // Fail fast: a session store that hangs would hang every request of the session.
        requestHandler: { connectionTimeout: 1000, requestTimeout: 3000, throwOnRequestTimeout: true },
      });
      const client = lib.DynamoDBDocumentClient.from(base, {
        marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      });
      return { client, lib };
    })();
    return this.commands.catch((error: unknown) => {
      this.commands = undefined;
      throw storeError(operation, error);
    });
  }
}

function toItem(record: SessionRecord): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const field of RECORD_FIELDS) {
    if (record[field] !== undefined) item[field] = record[field];
  }
  return item;
}

function fromItem(item: Record<string, unknown>): SessionRecord {
  return {
    sessionId: String(item.sessionId),
    initializeParams: (item.initializeParams as Record<string, unknown> | undefined) ?? {},
    protocolVersion: String(item.protocolVersion ?? ""),
    logLevel: typeof item.logLevel === "string" ? item.logLevel : undefined,
    data: (item.data as Record<string, unknown> | undefined) ?? {},
    principal: typeof item.principal === "string" ? item.principal : undefined,
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
    expiresAt: Number(item.expiresAt),
    version: Number(item.version),
  };
}

function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof Error && error.name === "ConditionalCheckFailedException";
}

function hasItem(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "Item" in error &&
    (error as { Item?: unknown }).Item !== undefined
  );
}

/** A short, safe description of a store failure: the operation and the error's name/code, never a stack. */
function storeError(operation: string, error: unknown): SessionStoreError {
  if (error instanceof SessionStoreError) return error;
  const name = error instanceof Error ? error.name : "UnknownError";
  const code =
    typeof error === "object" && error !== null && "code" in error
      ? String((error as { code: unknown }).code)
      : "";
  const detail = code && code !== name ? `${name} (${code})` : name;
  return new SessionStoreError(`session store ${operation} failed: ${detail}`);
}
