/** The headers an SSE answer adds to its route's own (CORS, the session). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
};

/** A comment line: keeps an idle stream in use, and is no event to the client. */
export const SSE_KEEPALIVE = ": keepalive\n\n";

/**
 * One SSE `message` event carrying one JSON-RPC message (JSON text has no raw line breaks), with its
 * id when the stream can be resumed after it.
 */
export function sseEvent(json: string, id?: string): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: message\ndata: ${json}\n\n`;
}

/** Whether the request's Accept header takes an SSE answer. */
export function acceptsEventStream(headers: Record<string, string>): boolean {
  return /\btext\/event-stream\b/i.test(headers.accept ?? "");
}
