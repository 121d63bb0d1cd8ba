import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { unlinkIfThere } from "./fileAccess.js";
import { STALE_LOCK_MS } from "./fileLocks.js";

/** A temporary file lives for the milliseconds between its write and its rename: one this old is debris. */
const STALE_TEMP_MS = 60_000;

const TEMP_FILE = /^\.[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.\d+\.[0-9a-f]+\.tmp$/;
const BROKEN_LOCK_FILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.lock\.[0-9a-f]+\.stale$/;

/** Whether `name` is what a crashed writer of the file store may leave: a temporary file, a broken lock. */
export function isDebris(name: string): boolean {
  return TEMP_FILE.test(name) || BROKEN_LOCK_FILE.test(name);
}

/**
 * Removes the debris `name` in `directory` once it is stale (a temporary file after STALE_TEMP_MS, a
 * broken lock after STALE_LOCK_MS); says whether a temporary file was removed, as the sweep counts them.
 */
export async function removeStaleDebris(directory: string, name: string): Promise<boolean> {
  const path = join(directory, name);
  // The name's own age (lstat): a link is removed as any debris, never followed.
  const modified = await lstat(path).then(
    (stats) => stats.mtimeMs,
    () => Date.now(), // gone already
  );
  const age = Date.now() - modified;
  const staleAfter = TEMP_FILE.test(name) ? STALE_TEMP_MS : STALE_LOCK_MS;
  return age > staleAfter && (await unlinkIfThere(path)) && TEMP_FILE.test(name);
}
