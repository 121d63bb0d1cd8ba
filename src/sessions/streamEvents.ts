import { STORE_CALL_TIMEOUT_MS as CALL_TIMEOUT_MS } from "../deadline.js";
import type { RequestId } from "../protocol/jsonrpc.js";
import { type DynamoCommands, loadDynamo } from "./dynamoClient.js";
import { SessionStoreError } from "./store.js";

/** Whom a stream's reply answers: one request's id, or the ids of a batch's requests. */
export type ReplyTo = RequestId | RequestId[] | null;

/**
 * One SSE event of a stream that answers a session's POST (2025 revisions): kept so that a client
 * whose stream broke can resume it (`GET /mcp` with `Last-Event-ID`) on any container.
 */
export interface StoredEvent {
  /** The stream, and the event's place in it (1, 2, …): together its SSE id (`eventId`). */
  streamId: string;
  seq: number;
  /** The session whose request the stream answers: only that session may resume it. */
  sessionId: string;
  /** One JSON-RPC message, as JSON text. */
  data: string;
  /** The request's reply: the stream's last event. */
  final: boolean;
  /**
   * Epoch milliseconds after which the invocation writing the stream writes nothing more (its Lambda's
   * own deadline): a resumption waiting for its reply past that answers in its place. Infinity when not
   * known (an event kept before it was noted).
   */
  writerDeadline: number;
  /** Whom the stream's reply answers, for the error a resumption sends when the writer died without one. */
  replyTo: ReplyTo;
}

/**
 * Where a session's stream events are kept while a client may come back for them, and its client's
 * cancellations, for whichever invocation runs the request cancelled.
 */
export interface StreamEventStore {
  /** Keeps one event; the events of a stream are appended in order, each after the one before. */
  append(event: StoredEvent): Promise<void>;
  /**
   * The stream's events from `seq` on, in order, up to the first one not (or not yet) there; at most
   * `limit`. Events past their keeping time count as not there.
   */
  from(streamId: string, seq: number, limit: number): Promise<StoredEvent[]>;
  /** Notes, with the time, that the session's client cancelled its request `requestId` (`notifications/cancelled`). */
  cancel(sessionId: string, requestId: string | number): Promise<void>;
  /**
   * Whether the session's client cancelled its request `requestId` received at `receivedAt` (epoch ms): a
   * cancellation noted before then was of an earlier request with that id (or of none yet), never this one.
   */
  isCancelled(sessionId: string, requestId: string | number, receivedAt: number): Promise<boolean>;
}

/** An event's SSE id: its stream and place, `<stream id>.<seq>`. */
export function eventId(streamId: string, seq: number): string {
  return `${streamId}.${seq}`;
}

/** The stream and place an SSE id names, or undefined for anything this server never sent. */
export function parseEventId(text: string): { streamId: string; seq: number } | undefined {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([1-9][0-9]{0,8})$/.exec(
    text,
  );
  return match ? { streamId: match[1] as string, seq: Number(match[2]) } : undefined;
}

/**
 * How long events are kept: longer than any stream can run (a REST API streams for 15 minutes at
 * most), so a client reconnecting at the end of one still finds every event.
 */
export const EVENT_KEEP_SECONDS = 3600;

/**
 * DynamoDB keeps an item up to 400 KB: an event's data is stored in parts of at most this many UTF-16
 * units (3 bytes of UTF-8 each at most), the first beside the event's fields, the others in items of
 * their own.
 */
const PART_UNITS = 100_000;
/** The longest data kept for resumption; a longer reply is replaced by an error saying so. */
export const MAX_STORED_EVENT_UNITS = 40 * PART_UNITS;
/** BatchGetItem reads at most 100 keys per call. */
const BATCH_KEYS = 100;

export interface DynamoStreamEventsOptions {
  /** The sessions table: events live beside the sessions, under keys no session id can take. */
  tableName: string;
  region: string;
  endpoint?: string;
  now?: () => number;
}

/**
 * Stream events in the sessions table (SESSION_TABLE), one item per event under the key
 * `stream#<stream id>#<seq>`, and a cancellation under `cancel#<session id>#<request id>` (a session's
 * key is a bare UUID, so they never meet), expiring with the table's TTL (`expiresAt`,
 * EVENT_KEEP_SECONDS on). Events are read by key, since their ids are
 * consecutive: BatchGetItem does what a Query on a sort key would, and the table keeps its one key.
 */
export class DynamoStreamEvents implements StreamEventStore {
  private commands: Promise<DynamoCommands> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: DynamoStreamEventsOptions) {
    this.now = options.now ?? Date.now;
  }

  async append(event: StoredEvent): Promise<void> {
    const parts = splitData(event.data);
    const expiresAt = Math.floor(this.now() / 1000) + EVENT_KEEP_SECONDS;
    const key = keyOf(event.streamId, event.seq);
    // The parts after the first go first: once the head item is there, the whole event is.
    for (let part = 1; part < parts.length; part++) {
      await this.send("append", ({ client, lib }, abortSignal) =>
        client.send(
          new lib.PutCommand({
            TableName: this.options.tableName,
            Item: { sessionId: `${key}#${part}`, data: parts[part], expiresAt },
          }),
          { abortSignal },
        ),
      );
    }
    await this.send("append", ({ client, lib }, abortSignal) =>
      client.send(
        new lib.PutCommand({
          TableName: this.options.tableName,
          Item: {
            sessionId: key,
            owner: event.sessionId,
            data: parts[0],
            parts: parts.length,
            final: event.final,
            writerDeadline: event.writerDeadline,
            // As JSON: an id's type (7 or "7") and a batch's list survive whatever the marshaller does.
            replyTo: JSON.stringify(event.replyTo),
            expiresAt,
          },
        }),
        { abortSignal },
      ),
    );
  }

  async from(streamId: string, seq: number, limit: number): Promise<StoredEvent[]> {
    const count = Math.max(0, Math.min(limit, BATCH_KEYS));
    const keys = Array.from({ length: count }, (_, index) => keyOf(streamId, seq + index));
    const heads = await this.getAll(keys);
    const nowSeconds = Math.floor(this.now() / 1000);
    const events: StoredEvent[] = [];
    for (const [index, key] of keys.entries()) {
      const head = heads.get(key);
      if (head === undefined || Number(head.expiresAt) <= nowSeconds) break;
      const parts = Number(head.parts ?? 1);
      const rest = parts > 1 ? await this.parts(key, parts) : [];
      if (rest === undefined) break;
      events.push({
        streamId,
        seq: seq + index,
        sessionId: String(head.owner),
        data: [String(head.data), ...rest].join(""),
        final: head.final === true,
        writerDeadline:
          typeof head.writerDeadline === "number" ? head.writerDeadline : Number.POSITIVE_INFINITY,
        replyTo: replyToOf(head.replyTo),
      });
    }
    return events;
  }

  async cancel(sessionId: string, requestId: string | number): Promise<void> {
    const cancelledAt = this.now();
    const expiresAt = Math.floor(cancelledAt / 1000) + EVENT_KEEP_SECONDS;
    await this.send("cancel", ({ client, lib }, abortSignal) =>
      client.send(
        new lib.PutCommand({
          TableName: this.options.tableName,
          Item: { sessionId: cancelKeyOf(sessionId, requestId), cancelledAt, expiresAt },
        }),
        { abortSignal },
      ),
    );
  }

  async isCancelled(sessionId: string, requestId: string | number, receivedAt: number): Promise<boolean> {
    const key = cancelKeyOf(sessionId, requestId);
    const cancelledAt = (await this.getAll([key])).get(key)?.cancelledAt;
    // A note without its time was kept before times were noted: of an earlier request, as far as anyone knows.
    return typeof cancelledAt === "number" && cancelledAt >= receivedAt;
  }

  /** An event's parts after the first, or undefined when one is missing. */
  private async parts(key: string, parts: number): Promise<string[] | undefined> {
    const keys = Array.from({ length: parts - 1 }, (_, index) => `${key}#${index + 1}`);
    const items = await this.getAll(keys);
    const data = keys.map((partKey) => items.get(partKey)?.data);
    return data.every((part) => typeof part === "string") ? (data as string[]) : undefined;
  }

  /** The items of `keys` (at most 100) that exist, by key: strongly consistent, unprocessed keys retried. */
  private async getAll(keys: string[]): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    if (keys.length === 0) return found;
    const table = this.options.tableName;
    let pending: Record<string, unknown>[] = keys.map((sessionId) => ({ sessionId }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === 3)
        throw new SessionStoreError("stream events read failed: keys left unprocessed three times");
      const keys = pending;
      const result = await this.send("read", ({ client, lib }, abortSignal) =>
        client.send(
          new lib.BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }),
          { abortSignal },
        ),
      );
      for (const item of result.Responses?.[table] ?? []) found.set(String(item.sessionId), item);
      pending = (result.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
    return found;
  }

  /**
   * Sends one command within CALL_TIMEOUT_MS. A failure is a SessionStoreError naming the operation and
   * the error's name, never more (no stack, no request): a resumption answers it 503, as a session
   * store's failure.
   */
  private async send<T>(
    operation: string,
    call: (commands: DynamoCommands, abortSignal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const commands = await this.load();
    try {
      return await call(commands, AbortSignal.timeout(CALL_TIMEOUT_MS));
    } catch (error) {
      const name = error instanceof Error ? error.name : "UnknownError";
      throw new SessionStoreError(`stream events ${operation} failed: ${name}`);
    }
  }

  private load(): Promise<DynamoCommands> {
    this.commands ??= loadDynamo(this.options.region, this.options.endpoint);
    return this.commands.catch((error: unknown) => {
      this.commands = undefined;
      throw new SessionStoreError(
        `stream events failed: the DynamoDB client did not load (${(error as Error).name})`,
      );
    });
  }
}

function keyOf(streamId: string, seq: number): string {
  return `stream#${streamId}#${seq}`;
}

/** A cancellation's key: the session, and the request id as JSON (7 and "7" are different ids). */
function cancelKeyOf(sessionId: string, requestId: string | number): string {
  return `cancel#${sessionId}#${JSON.stringify(requestId)}`;
}

/** A kept `replyTo` (JSON text); null for anything else, which a resumption answers with id null. */
function replyToOf(kept: unknown): ReplyTo {
  if (typeof kept !== "string") return null;
  try {
    const value: unknown = JSON.parse(kept);
    const isId = (id: unknown) => typeof id === "string" || typeof id === "number";
    if (isId(value)) return value as RequestId;
    if (Array.isArray(value) && value.every(isId)) return value as RequestId[];
  } catch {
    // Not JSON: not something this server kept.
  }
  return null;
}

/** `data` in parts of at most PART_UNITS, never splitting a surrogate pair (a lone half is no UTF-8). */
export function splitData(data: string): string[] {
  const parts: string[] = [];
  let at = 0;
  do {
    let end = Math.min(data.length, at + PART_UNITS);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    parts.push(data.slice(at, end));
    at = end;
  } while (at < data.length);
  return parts;
}
