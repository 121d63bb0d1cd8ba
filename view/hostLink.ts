/**
 * The view's side of MCP Apps: JSON-RPC 2.0 over `postMessage` with the host window, the view being
 * the client. Written here rather than taken from `@modelcontextprotocol/ext-apps`' App class: that
 * class bundles the MCP SDK and zod (over 700 KB minified), and the page must stay small; the few
 * messages a read-only chart needs are these.
 */

type Params = Record<string, unknown>;
type Handler = (params: Params) => unknown;

interface Pending {
  resolve: (result: Params) => void;
  reject: (error: Error) => void;
}

/** A request the host answered with a JSON-RPC error. */
export class HostError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class HostLink {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly notifications = new Map<string, Handler>();
  private readonly requests = new Map<string, Handler>();

  /** `host`: the window that embeds the view; messages from any other window are ignored. */
  constructor(private readonly host: Window) {
    window.addEventListener("message", (event) => {
      if (event.source === host) void this.receive(event.data);
    });
  }

  request(method: string, params: Params): Promise<Params> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: Params): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  onNotification(method: string, handler: Handler): void {
    this.notifications.set(method, handler);
  }

  onRequest(method: string, handler: Handler): void {
    this.requests.set(method, handler);
  }

  private send(message: Params): void {
    // The host's origin is not ours to know (a sandboxed frame has an opaque one): any target.
    this.host.postMessage(message, "*");
  }

  private async receive(message: unknown): Promise<void> {
    if (typeof message !== "object" || message === null) return;
    const { jsonrpc, id, method, params, result, error } = message as Params;
    if (jsonrpc !== "2.0") return;
    const given = typeof params === "object" && params !== null ? (params as Params) : {};
    if (typeof method === "string") {
      if (id === undefined) {
        this.notifications.get(method)?.(given);
        return;
      }
      void this.answer(id, method, given);
      return;
    }
    if (typeof id !== "number") return;
    const waiting = this.pending.get(id);
    if (waiting === undefined) return;
    this.pending.delete(id);
    if (typeof error === "object" && error !== null) {
      const { code, message: text } = error as Params;
      waiting.reject(new HostError(Number(code), String(text)));
    } else {
      waiting.resolve(typeof result === "object" && result !== null ? (result as Params) : {});
    }
  }

  private async answer(id: unknown, method: string, params: Params): Promise<void> {
    const handler = this.requests.get(method);
    if (handler === undefined) {
      this.send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    try {
      this.send({ jsonrpc: "2.0", id, result: (await handler(params)) ?? {} });
    } catch (error) {
      this.send({ jsonrpc: "2.0", id, error: { code: -32603, message: String(error) } });
    }
  }
}
