/**
 * A small MCP Apps host, run in the browser by the view's tests (test/e2e/rangeView.test.ts bundles
 * it): an MCP client of the server under test (`@modelcontextprotocol/client`) and the ext-apps SDK's
 * own host bridge (`AppBridge`), as a chat client that supports MCP Apps has them. `showTool` lists the
 * tools, reads the view the tool points at, loads it in a sandboxed frame, calls the tool and hands
 * the view its arguments and result. The client's HTTP goes through `window.hostFetch`, which the test
 * provides from Node: the page itself makes no network request, so any request seen is the view's.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

interface Relayed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What the host saw, for the test to check against what the view drew. */
export interface Shown {
  /** Content types of the tool's result, in order. */
  content: string[];
  /** The view's URI the tool pointed at, and the resource's MIME type. */
  resourceUri: string;
  mimeType: string | undefined;
  /** Series in the result (ExecuteRangeQuery), when it has them. */
  series: number | undefined;
  /** The `ui/initialize` the view sent: its name. */
  appName: string | undefined;
}

declare global {
  interface Window {
    hostFetch(
      url: string,
      init: { method: string; headers: Record<string, string>; body?: string },
    ): Promise<Relayed>;
    showTool(url: string, tool: string, args: Record<string, unknown>, options?: HostOptions): Promise<Shown>;
  }
}

/** How this host behaves: by default it lets the view call the server's tools (`serverTools`). */
export interface HostOptions {
  /** false: a host that does not proxy the view's tool calls. */
  serverTools?: boolean;
}

const HOST = { name: "prometheus-mcp-lambda test host", version: "1.0.0" };
const MCP_APPS = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };

async function relayFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const relayed = await window.hostFetch(String(url), {
    method: init?.method ?? "GET",
    headers: Object.fromEntries(new Headers(init?.headers).entries()),
    ...(typeof init?.body === "string" ? { body: init.body } : {}),
  });
  const empty = relayed.body === "" || relayed.status === 204 || relayed.status === 202;
  return new Response(empty ? null : relayed.body, { status: relayed.status, headers: relayed.headers });
}

window.showTool = async (url, toolName, args, options = {}) => {
  const client = new Client(HOST, { capabilities: { extensions: MCP_APPS } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: relayFetch }));
  const { tools } = await client.listTools();
  const tool = tools.find((listed) => listed.name === toolName);
  const resourceUri = (tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (resourceUri === undefined) throw new Error(`${toolName} points at no view`);
  const { contents } = await client.readResource({ uri: resourceUri });
  const page = contents[0];
  if (page === undefined || !("text" in page)) throw new Error(`${resourceUri} has no text`);

  const frame = document.createElement("iframe");
  // A sandboxed frame of its own (opaque) origin, as MCP Apps hosts load views.
  frame.setAttribute("sandbox", "allow-scripts");
  frame.id = "view";
  frame.style.cssText = "width: 900px; height: 480px; border: 1px solid #ccc";
  document.body.append(frame);
  const bridge = new AppBridge(
    client,
    HOST,
    { ...(options.serverTools === false ? {} : { serverTools: {} }), serverResources: {}, logging: {} },
    {
      hostContext: {
        theme: "light",
        displayMode: "inline",
        containerDimensions: { width: 900, maxHeight: 800 },
      },
    },
  );
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  const window_ = frame.contentWindow as Window;
  await bridge.connect(new PostMessageTransport(window_, window_));
  frame.srcdoc = page.text;
  await initialized;

  const result = await client.callTool({ name: toolName, arguments: args });
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  const structured = result.structuredContent as { result?: unknown[] } | undefined;
  return {
    content: (result.content as { type: string }[]).map((item) => item.type),
    resourceUri,
    mimeType: page.mimeType,
    series: Array.isArray(structured?.result) ? structured.result.length : undefined,
    appName: bridge.getAppVersion()?.name,
  };
};
