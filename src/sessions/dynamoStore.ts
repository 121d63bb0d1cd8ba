import { abortedByDeadline, type RequestContext, step } from "../context.js";
import { STORE_CALL_TIMEOUT_MS as CALL_TIMEOUT_MS } from "../deadline.js";
import { firstLine } from "../errors.js";
import { traced } from "../tracing/trace.js";
import { cutText } from "../util/text.js";
import { BaseSessionStore, type RecordLimit } from "./baseStore.js";
import { type DynamoCommands, loadDynamo } from "./dynamoClient.js";
import { CHANGE_FIELDS, recordFrom, type Serialised, toStored } from "./record.js";
import {
  type SessionChanges,
  SessionDataError,
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

type Commands = DynamoCommands;

/** One call of the store: the commands, and the abort signal bounding it. */
type Call<T> = (commands: Commands, abortSignal: AbortSignal) => Promise<T>;

/**
 * Sessions in a DynamoDB table (partition key `sessionId` S, TTL attribute `expiresAt` in epoch
 * seconds). The AWS SDK is imported on first use, so a container without sessions never loads it.
 */
export class DynamoSessionStore extends BaseSessionStore implements SessionStore {
  protected readonly keyName = "key";
  private readonly tableName: string;
  private readonly region: string;
  private readonly endpoint: string | undefined;
  private commands: Promise<Commands> | undefined;

  constructor({ tableName, region, endpoint }: DynamoSessionStoreOptions) {
    super();
    this.tableName = tableName;
    this.region = region;
    this.endpoint = endpoint;
  }

  /**
   * No bound of its own: the base refuses what the marshaller would, and DynamoDB's own refusal of an item
   * (over 400 KB, counted its way) becomes the same SessionDataError in `call`.
   */
  protected recordLimit(): RecordLimit {
    return { bytes: Number.POSITIVE_INFINITY, holder: "a DynamoDB item holds" };
  }

  protected async putRecord(
    record: SessionRecord,
    _stored: Serialised,
    context: RequestContext,
  ): Promise<void> {
    try {
      await this.call("create", context, ({ client, lib }, abortSignal) =>
        client.send(
          new lib.PutCommand({
            TableName: this.tableName,
            Item: toItem(record),
            ConditionExpression: "attribute_not_exists(sessionId)",
          }),
          { abortSignal },
        ),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error))
        throw new SessionStoreError("session store create failed: the id exists already");
      throw error;
    }
  }

  protected getRecord(sessionId: string, context: RequestContext): Promise<SessionRecord | undefined> {
    return this.read(sessionId, "get", context);
  }

  protected async updateRecord(
    sessionId: string,
    expectedVersion: number,
    changes: SessionChanges,
    bumpVersion: boolean,
    context: RequestContext,
  ): Promise<UpdateResult> {
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
    if (updateExpression === "") {
      // Nothing to write: still answer whether the version matches, with one consistent read.
      const current = await this.read(sessionId, "update", context);
      if (!current) return "missing";
      return current.version === expectedVersion ? "updated" : "conflict";
    }
    try {
      await this.call("update", context, ({ client, lib }, abortSignal) =>
        client.send(
          new lib.UpdateCommand({
            TableName: this.tableName,
            Key: { sessionId },
            UpdateExpression: updateExpression,
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValuesOnConditionCheckFailure: "ALL_OLD",
          }),
          { abortSignal },
        ),
      );
      return "updated";
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      // DynamoDB returns the old item when there is one; emulators may not, so confirm with a read.
      if (hasItem(error)) return "conflict";
      return (await this.read(sessionId, "update", context)) ? "conflict" : "missing";
    }
  }

  protected async deleteRecord(sessionId: string, context: RequestContext): Promise<boolean> {
    const result = await this.call("delete", context, ({ client, lib }, abortSignal) =>
      client.send(
        new lib.DeleteCommand({ TableName: this.tableName, Key: { sessionId }, ReturnValues: "ALL_OLD" }),
        { abortSignal },
      ),
    );
    return result.Attributes !== undefined;
  }

  private async read(
    sessionId: string,
    operation: string,
    context: RequestContext,
  ): Promise<SessionRecord | undefined> {
    const result = await this.call(operation, context, ({ client, lib }, abortSignal) =>
      client.send(
        new lib.GetCommand({ TableName: this.tableName, Key: { sessionId }, ConsistentRead: true }),
        {
          abortSignal,
        },
      ),
    );
    return result.Item === undefined ? undefined : fromItem(result.Item, sessionId);
  }

  /**
   * Runs one store call within CALL_TIMEOUT_MS and the request's deadline. Failures become
   * SessionStoreError (503), except a failed write condition, which the caller interprets, and a created
   * item DynamoDB refuses (too large…): that is the client's data, a SessionDataError (400), never 503.
   * A traced request gets an X-Ray subsegment `DynamoDB <operation>` for it.
   */
  private call<T>(operation: string, context: RequestContext, send: Call<T>): Promise<T> {
    return traced(
      context.trace,
      `DynamoDB ${operation}`,
      (span) => {
        span?.describe("table", this.tableName);
        return this.callUntraced(operation, context, send);
      },
      // The version did not match or the id exists: the answer of a conditional write, not a failure.
      isConditionalCheckFailure,
    );
  }

  private async callUntraced<T>(operation: string, context: RequestContext, send: Call<T>): Promise<T> {
    const { timeoutMs, signal, end } = step(context, CALL_TIMEOUT_MS);
    try {
      if (timeoutMs <= 0) {
        throw new SessionStoreError(
          `session store ${operation} not tried: the request's deadline has passed`,
        );
      }
      return await send(await this.load(operation), signal);
    } catch (error) {
      if (error instanceof SessionStoreError || isConditionalCheckFailure(error)) throw error;
      if (operation === "create" && isItemRefusal(error)) {
        throw new SessionDataError(
          `Invalid params for initialize: the session store cannot hold them (${cutText(firstLine(error.message), 200, "")})`,
        );
      }
      if (abortedByDeadline(signal)) {
        throw new SessionStoreError(`session store ${operation} failed: no answer within ${timeoutMs} ms`);
      }
      if (signal.aborted)
        throw new SessionStoreError(`session store ${operation} failed: the request was cancelled`);
      throw storeError(operation, error);
    } finally {
      end();
    }
  }

  private load(operation: string): Promise<Commands> {
    this.commands ??= loadDynamo(this.region, this.endpoint);
    return this.commands.catch((error: unknown) => {
      this.commands = undefined;
      throw storeError(operation, error);
    });
  }
}

/** The record as an item: its stored fields (record.ts `toStored`), with undefined ones left out. */
function toItem(record: SessionRecord): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(toStored(record))) {
    if (value !== undefined) item[field] = value;
  }
  return item;
}

/**
 * The session record an item holds, or undefined when it holds none: the table also keeps stream events
 * and cancellations (src/sessions/streamEvents.ts), which are no session whatever key is asked for.
 */
function fromItem(item: Record<string, unknown>, sessionId: string): SessionRecord | undefined {
  const parsed = recordFrom(item, sessionId);
  return "record" in parsed ? parsed.record : undefined;
}

function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof Error && error.name === "ConditionalCheckFailedException";
}

/**
 * DynamoDB's ValidationException about the item written (its size, nesting, numbers), not about the
 * request's own parameters: a table name it refuses is the deployment's fault, answered 503 as before.
 */
function isItemRefusal(error: unknown): error is Error {
  return error instanceof Error && error.name === "ValidationException" && !/tableName/i.test(error.message);
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
