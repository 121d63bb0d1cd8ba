import { spawn } from "node:child_process";

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Past this the whole process group is killed and the promise rejects with what it printed. */
  timeoutMs: number;
}

/** Runs a command to its end (in its own process group, so children die with it) and collects its output. */
export function runToEnd(command: string, args: string[], options: RunOptions): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      reject(
        new Error(
          `${command} ${args.join(" ")} did not finish within ${options.timeoutMs} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like runToEnd, but a non-zero exit rejects, naming the command and its last output. */
export async function runOk(command: string, args: string[], options: RunOptions): Promise<Finished> {
  const finished = await runToEnd(command, args, options);
  if (finished.code !== 0) {
    const output = `${finished.stdout}\n${finished.stderr}`.slice(-2000);
    throw new Error(`${command} ${args.join(" ")} exited with ${finished.code}: ${output}`);
  }
  return finished;
}
