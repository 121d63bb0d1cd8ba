import type { Body } from "../../protocol/classify.js";
import type { EdgeMiddleware } from "./edge.js";

/** A body as JSON, or what JSON.parse threw on it (the route answers that: `classify`, PYTHON_COMPAT). */
export function parseBody(text: string): Body {
  try {
    return { json: JSON.parse(text) };
  } catch (error) {
    return { notJson: error };
  }
}

/**
 * Parses a POST's body once, last, when every rule has let it by: the route reads its era and payload
 * from it, and the streamed entry whom a kept stream's reply answers. It refuses nothing: a body that
 * is not JSON is answered by the route, in the era's form.
 */
export const jsonBody: EdgeMiddleware = {
  name: "json-body",
  before: ({ event }) => {
    if (event.request.method === "POST") event.decided.body = parseBody(event.request.body);
  },
};
