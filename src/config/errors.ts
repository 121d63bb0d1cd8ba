import { redactCredentials } from "../prometheus/urls.js";

/** A bad setting: its message is one line naming the variable (what to fix), never a secret. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** The environment as a process gets it. */
export type Env = Record<string, string | undefined>;

/** The value is quoted with any `user:password@` of a URL cut out: this line goes to the log. */
export function fail(variable: string, value: string, expected: string): never {
  throw new ConfigError(
    `Invalid configuration: ${variable}=${JSON.stringify(redactCredentials(value))} (expected ${expected})`,
  );
}

/** As `fail`, for a setting whose value must never be repeated (it may hold a credential). */
export function failQuietly(variable: string, expected: string): never {
  throw new ConfigError(`Invalid configuration: ${variable} (expected ${expected})`);
}

/** A variable's value, trimmed; unset or blank is undefined (an empty value means "unset"). */
export function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** A comma-separated list's entries, trimmed, the empty ones dropped. */
export function entriesOf(raw: string): string[] {
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}
