import { cutText } from "../util/text.js";

/** A caller's string in an answer is cut here: enough to recognise it, never a megabyte echoed. */
const ECHOED_CHARS = 120;

/** `text` as an answer may echo it: its first ECHOED_CHARS characters, and `…` when there were more. */
export function cut(text: string): string {
  return cutText(text, ECHOED_CHARS);
}
