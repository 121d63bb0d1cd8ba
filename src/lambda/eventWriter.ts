import { randomUUID } from "node:crypto";
import { sseEvent } from "../http/sse.js";
import { ErrorCode, errorReply, type RequestId } from "../protocol/jsonrpc.js";
import { eventId, MAX_STORED_EVENT_UNITS } from "../sessions/streamEvents.js";
import { isPlainObject } from "../util/json.js";
import type { ResponseOut } from "./responseStream.js";
import type { Keeping } from "./streamKeeping.js";

/**
 * The events of one SSE answer, written in order. When the stream can be resumed (`keeping`), each
 * event is kept before it is sent, with its id: a client never holds an id whose event a resumption
 * could not find, and the reply is kept even when nobody is listening any more.
 */
export class EventWriter {
  private seq = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly streamId = randomUUID();

  constructor(
    private readonly out: ResponseOut,
    private keeping: Keeping | undefined,
  ) {}

  send(json: string, final = false): void {
    const seq = ++this.seq;
    this.chain = this.chain.then(async () => {
      const id = await this.kept(json, seq, final);
      this.out.write(sseEvent(json, id));
    });
  }

  /** Sends the reply, the last event, and ends the stream once every event is kept and written. */
  async end(json: string): Promise<void> {
    this.send(json, true);
    await this.chain;
    this.out.end();
  }

  /** The event's id once it is kept; undefined when the stream is not (or no longer) kept. */
  private async kept(json: string, seq: number, final: boolean): Promise<string | undefined> {
    const keeping = this.keeping;
    if (keeping === undefined) return undefined;
    try {
      const data = json.length <= MAX_STORED_EVENT_UNITS ? json : tooLargeToKeep(json);
      const { sessionId, writerDeadline, replyTo } = keeping;
      await keeping.store.append({
        streamId: this.streamId,
        seq,
        sessionId,
        data,
        final,
        writerDeadline,
        replyTo,
      });
      return eventId(this.streamId, seq);
    } catch (error) {
      // A resumption reads events up to the first missing one: with this one missing, nothing after it
      // could be resumed, so the stream goes on without ids.
      this.keeping = undefined;
      keeping.onFault(error);
      return undefined;
    }
  }
}

/** What a resumed stream gets for a reply too large to keep: an error naming its size, to its id. */
function tooLargeToKeep(json: string): string {
  let id: RequestId | null = null;
  try {
    const reply: unknown = JSON.parse(json);
    if (isPlainObject(reply) && (typeof reply.id === "string" || typeof reply.id === "number")) id = reply.id;
  } catch {
    // Every reply is JSON; without an id the error still tells the client what happened.
  }
  const message = `The reply (${json.length} characters) is too large to keep for a resumed stream: send the request again`;
  return JSON.stringify(errorReply(id, ErrorCode.InternalError, message));
}
