import { RANGE_VIEW_URI, VIEW_MIME_TYPE, VIEW_UI_META } from "./rangeView.js";

/**
 * `resources/read` of the view: its page, with its rendering wishes. The page (tens of KB) is loaded
 * by the first read only: nothing of it is parsed at a cold start.
 */
export async function readRangeView(): Promise<{ contents: Array<Record<string, unknown>> }> {
  const { rangeViewHtml } = await import("./viewHtml.js");
  const text = await rangeViewHtml();
  return { contents: [{ uri: RANGE_VIEW_URI, mimeType: VIEW_MIME_TYPE, text, _meta: { ui: VIEW_UI_META } }] };
}
