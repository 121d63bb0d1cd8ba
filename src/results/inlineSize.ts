/**
 * How large a tool result's text may be, so that Claude Code shows it to the model whole. Claude Code keeps
 * a tool result inline up to 50,000 characters, or up to what the tool's tools/list entry declares in
 * `_meta["anthropic/maxResultSizeChars"]` (at most 500,000); above that it saves the result to a file and
 * the model reads a 2 KB preview. A result at the token budget takes more than 50,000 characters (bench
 * case catalogue-answers), so every tool declares the cap its texts are cut to, and the declaration is
 * true: a text's characters (UTF-16 units) are never more than its UTF-8 bytes, which the cap bounds.
 */

/** The `_meta` key Claude Code reads. */
export const INLINE_SIZE_KEY = "anthropic/maxResultSizeChars";

/** The most Claude Code accepts as a declared size, in characters. */
export const MAX_DECLARED_CHARS = 500_000;

/**
 * The cap on one result's text in bytes when MAX_RESULT_BYTES is unset: the most Claude Code keeps inline.
 * At the default token budget no answer comes near it (the token budget cuts first); it binds only for a
 * text of few tokens per byte, or a budget raised far above the default.
 */
export const DEFAULT_RESULT_BYTES = MAX_DECLARED_CHARS;

/** The cap on one result's text in bytes: MAX_RESULT_BYTES when set, else DEFAULT_RESULT_BYTES. */
export function resultBytesCap(maxResultBytes: number | undefined): number {
  return maxResultBytes ?? DEFAULT_RESULT_BYTES;
}

/**
 * A tool's `_meta` entry declaring the cap, or nothing when the cap is more than Claude Code accepts
 * (MAX_RESULT_BYTES above 500,000: a declaration could not be true, and larger answers go to a file).
 */
export function inlineSizeMeta(cap: number): Record<string, number> {
  return cap <= MAX_DECLARED_CHARS ? { [INLINE_SIZE_KEY]: cap } : {};
}
