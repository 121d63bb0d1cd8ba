import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open, unlink } from "node:fs/promises";
import { SessionStoreError } from "./store.js";

/**
 * How the file store opens what it reads: never through a symbolic link (a link to /dev/zero would be read
 * forever), and without waiting (opening a FIFO for reading waits for a writer, holding one of libuv's four
 * I/O threads, which every fs and DNS call of the process shares). O_NONBLOCK changes nothing for a
 * regular file. Windows has neither flag, nor FIFOs in a directory.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** What a read found: the file's bytes, or why it is not a file of this store's. */
export type FileRead = { bytes: Buffer } | { problem: string };

/**
 * The bytes of the regular file at `path`, at most `maxBytes` of them; undefined when there is no file.
 * Anything else under that name (a link, a FIFO, a device, a directory, a file over `maxBytes`) is a
 * problem, read no further than its first `maxBytes + 1` bytes. Other failures throw, with their code.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<FileRead | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return undefined;
    // O_NOFOLLOW's refusal is ELOOP on Linux and macOS, EMLINK on FreeBSD; opening a socket is ENXIO. The
    // name's own lstat says which (a loop further up the path is another failure, thrown as it is).
    if (code === "ELOOP" || code === "EMLINK" || code === "ENXIO") {
      const problem = await lstat(path).then(problemOf, () => undefined);
      if (problem !== undefined) return { problem };
    }
    throw error;
  }
  try {
    const stats = await handle.stat();
    const problem = problemOf(stats);
    if (problem !== undefined) return { problem };
    if (stats.size > maxBytes) return { problem: `larger than ${maxBytes} bytes` };
    const bytes = await readAtMost(handle, stats.size, maxBytes);
    return bytes === undefined ? { problem: `larger than ${maxBytes} bytes` } : { bytes };
  } finally {
    await handle.close();
  }
}

/**
 * The handle's bytes to its end, or undefined past `maxBytes`. Sized by what fstat said, grown if the file
 * grew since (one more byte than allowed tells a file over the limit from one that fits).
 */
async function readAtMost(
  handle: FileHandle,
  expected: number,
  maxBytes: number,
): Promise<Buffer | undefined> {
  let buffer = Buffer.allocUnsafe(Math.min(expected, maxBytes) + 1);
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      if (buffer.length > maxBytes) return undefined;
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(grown);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
    if (bytesRead === 0) return buffer.subarray(0, filled);
    filled += bytesRead;
  }
}

/** Why a file of this kind is none of the store's; undefined for a regular file. */
function problemOf(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isSymbolicLink()) return "a symbolic link";
  const kind = stats.isDirectory()
    ? "a directory"
    : stats.isFIFO()
      ? "a FIFO"
      : stats.isSocket()
        ? "a socket"
        : stats.isCharacterDevice()
          ? "a character device"
          : stats.isBlockDevice()
            ? "a block device"
            : "of an unknown kind";
  return `not a regular file (${kind})`;
}

export function codeOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** What the usual failures mean, for a message a person can act on. */
const MEANINGS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "a directory is in the way",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "too many symbolic links in the path",
  EIO: "I/O error",
};

/** A file-system failure as one line: its code and what it means, never a path's content or a stack. */
export function describeError(error: unknown): string {
  if (error instanceof SessionStoreError) return error.message;
  const code = codeOf(error);
  if (code === undefined) return error instanceof Error ? error.name : "UnknownError";
  const meaning = MEANINGS[code];
  return meaning === undefined ? code : `${code} (${meaning})`;
}

/** Removes `path`; false when it was not there. */
export async function unlinkIfThere(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if (codeOf(error) === "ENOENT") return false;
    throw error;
  }
}

/** Removes a file of this store's own (a temporary file, a moved lock) if it is there; a sweep retries failures. */
export async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}
