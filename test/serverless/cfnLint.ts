import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { runToEnd } from "../support/childProcess.js";

/** What cfn-lint found in a packaged template: each finding's rule id (E…, W…) with its line. */
export interface LintFindings {
  errors: string[];
  warnings: string[];
  /** Everything it printed, for a failing test's message. */
  output: string;
}

/** Whether the `cfn-lint` command exists here. In CI it must (`.ci/run` installs it). */
export function cfnLintAvailable(): boolean {
  const found = spawnSync("cfn-lint", ["--version"], { stdio: "ignore" }).status === 0;
  if (!found && process.env.CI)
    throw new Error("cfn-lint is not installed: .ci/run installs cfn-lint==1.51.0");
  return found;
}

/** Lints the template `serverless package` wrote to `dir`. */
export async function cfnLint(dir: string): Promise<LintFindings> {
  const run = await runToEnd("cfn-lint", [join(dir, "cloudformation-template-update-stack.json")], {
    timeoutMs: 120_000,
  });
  const findings = run.stdout.split("\n").filter((line) => /^[EWI]\d{4} /.test(line));
  return {
    errors: findings.filter((line) => line.startsWith("E")),
    warnings: findings.filter((line) => line.startsWith("W")),
    output: `exit ${run.code}\n${run.stdout}${run.stderr}`,
  };
}
