import { mkdir, stat } from "node:fs/promises";
import { SessionStoreError } from "./store.js";

/**
 * Makes the file store's directory if it is missing (owner only, with its parents), and says why the store
 * may not use the directory there, if so: undefined when it may. File-system failures throw.
 *
 * Whoever can write into the directory can put anything under a session's name (a link to /dev/zero, a
 * FIFO, a record of their making, a lock that never ends), or read what a session names of its caller.
 * So it must be this user's and no one else may write into it. A directory the store made is (mode 0700);
 * one that was there already is checked, never changed: it may be shared on purpose (/tmp itself), and what
 * others wrote into it while it was open is there still.
 */
export async function prepareSessionDirectory(directory: string): Promise<string | undefined> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  return checkSessionDirectory(directory);
}

/** Why the store may not use the directory that is there (see prepareSessionDirectory); throws ENOENT if none is. */
export async function checkSessionDirectory(directory: string): Promise<string | undefined> {
  // Windows has no owner ids, and its mode bits say nothing of who may write.
  const uid = process.getuid?.();
  if (uid === undefined || process.platform === "win32") return undefined;
  const stats = await stat(directory);
  if (stats.uid !== uid) {
    return `session directory ${directory} belongs to another user (uid ${stats.uid}, this process runs as ${uid}): set SESSION_DIR to a directory of this user's own`;
  }
  const mode = stats.mode & 0o7777;
  if ((mode & 0o022) !== 0) {
    return `session directory ${directory} may be written by other users (mode ${mode.toString(8).padStart(4, "0")}): make it its owner's alone (chmod 700) or set SESSION_DIR to another directory`;
  }
  return undefined;
}

/**
 * The file store's way into its directory: made if missing (once) and checked before any call uses it. A
 * refused directory is checked again at the next call, so one made right (chmod 700) serves at once; each
 * call meanwhile fails, 503, and one warning says why until the reason changes.
 */
export class DirectoryGate {
  private ready: Promise<string | undefined> | undefined;
  /** Why the directory was last refused, once warned: one warning until the reason changes. */
  private warnedRefusal: string | undefined;

  constructor(
    private readonly directory: string,
    private readonly warn: (message: string) => void,
    private readonly ioError: (operation: string, error: unknown) => SessionStoreError,
  ) {}

  /** Makes the directory if missing (once) and checks it may be used; throws SessionStoreError if not. */
  async open(operation: string): Promise<void> {
    this.ready ??= prepareSessionDirectory(this.directory);
    let problem: string | undefined;
    try {
      problem = await this.ready;
    } catch (error) {
      this.ready = undefined;
      throw this.ioError(operation, error);
    }
    if (problem === undefined) {
      this.warnedRefusal = undefined;
      return;
    }
    this.ready = undefined;
    this.warnRefusal(problem);
    throw new SessionStoreError(`session store ${operation} failed: ${problem}`);
  }

  /** The directory was removed under a running server: make it again, checked as at first. */
  async remake(operation: string): Promise<void> {
    this.ready = undefined;
    await this.open(operation);
  }

  /** A refused directory fails every call with a 503 whose message reaches no log: one warning says why. */
  warnRefusal(problem: string): void {
    if (this.warnedRefusal === problem) return;
    this.warnedRefusal = problem;
    this.warn(`session store: ${problem}; until then every session request is answered 503`);
  }
}
