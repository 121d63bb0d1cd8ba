/**
 * The MCP Apps view of range results (extension `io.modelcontextprotocol/ui`): one `ui://` resource,
 * an HTML page (view/, built by scripts/view-build.mjs) that a host supporting MCP Apps shows beside
 * an ExecuteRangeQuery or PlotRangeQuery result, drawing its series. Hosts without MCP Apps ignore the
 * `_meta` that points at it and see the results as they are.
 */

export const UI_EXTENSION = "io.modelcontextprotocol/ui";
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";
export const RANGE_VIEW_URI = "ui://prometheus-mcp-lambda/range-chart";

/** What a server that serves the view declares (both protocol eras): resources, and the extension. */
export const VIEWS_CAPABILITY = {
  resources: { subscribe: false, listChanged: false },
  extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } },
};

/**
 * The view's rendering wishes (MCP Apps resource `_meta.ui`): no network origins of any kind (an
 * empty CSP list is the spec's most restrictive default, which the page's own policy repeats), and
 * a border, the chart having no frame of its own.
 */
export const VIEW_UI_META = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };

/** The view as `resources/list` lists it. */
export const RANGE_VIEW_RESOURCE = {
  uri: RANGE_VIEW_URI,
  name: "range-chart",
  title: "Range query chart",
  description:
    "Interactive chart of a range query's series (zoom, hover values, hide or show series): the view of ExecuteRangeQuery and PlotRangeQuery results.",
  mimeType: VIEW_MIME_TYPE,
  _meta: { ui: VIEW_UI_META },
};

/**
 * A tool's `_meta` pointing at the view: `ui.resourceUri`, and the flat `ui/resourceUri` key that
 * hosts built on the extension's drafts read (the extension's own server helpers still write both).
 */
export function viewMetaOf(uri: string): Record<string, unknown> {
  return { ui: { resourceUri: uri }, "ui/resourceUri": uri };
}
