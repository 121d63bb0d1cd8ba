import { runOk } from "./childProcess.js";

/** Makes a FIFO (a named pipe) at `path`, with the system's own mkfifo. */
export async function mkfifo(path: string): Promise<void> {
  await runOk("mkfifo", [path], { timeoutMs: 10_000 });
}

/**
 * Run by releaseFifos in a child process: each path that is still a FIFO is opened for writing (without
 * waiting: no reader, no open), removed, then closed. A reader blocked in opening it is let go and reads an
 * empty file; one that opens it again by name finds nothing there, and waits no more.
 */
const RELEASE = `
  const fs = require("node:fs");
  for (const path of process.argv.slice(1)) {
    let fifo = false;
    try { fifo = fs.lstatSync(path).isFIFO(); } catch {}
    if (!fifo) continue;
    let fd;
    try { fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK); } catch {}
    fs.unlinkSync(path);
    if (fd !== undefined) fs.closeSync(fd);
  }
`;

/**
 * Lets go of whatever waits on the FIFOs at `paths` (code that opens a FIFO for reading without
 * O_NONBLOCK waits for a writer, holding one of libuv's I/O threads). From another process: when every
 * I/O thread of this one is held, none of its own fs calls would run.
 */
export async function releaseFifos(paths: string[]): Promise<void> {
  await runOk(process.execPath, ["-e", RELEASE, ...paths], {
    env: { ...process.env, NODE_OPTIONS: "" },
    timeoutMs: 10_000,
  });
}
