/**
 * Start-up warnings: mistakes the configuration does not refuse but that would show only at the first
 * tool call (a misspelled variable, SigV4 for a URL that is not AMP's, credentials kept in the
 * environment), and the one line saying which Prometheus a local server queries.
 */
import { sigv4Mismatch } from "../prometheus/access.js";
import type { AuthMode } from "../prometheus/auth.js";
import { redactCredentials } from "../prometheus/urls.js";
import type { Env } from "./errors.js";
import { SETTING_NAMES } from "./schema.js";
import type { Config } from "./types.js";

/**
 * Prefixes only this server's settings use: any other variable starting so is a mistake. (Not
 * SESSION_, which desktop sessions set as SESSION_MANAGER; a misspelled SESSION_ name is near one anyway.)
 */
const OUR_PREFIXES = ["PROMETHEUS_", "ALERTMANAGER_", "MAX_RESULT_", "PYTHON_COMPAT", "METRICS_", "JWT_"];

/** Character counts, reused by bagDistance (one call at a time). */
const bag = new Int32Array(128);

/**
 * How many characters one name has that the other lacks, counted with repeats (the larger of the two
 * sides): a lower bound of their edit distance, since one edit changes each side by at most one. It
 * rules out nearly every pair in a few steps, before the quadratic Levenshtein table: a cold start
 * checks every variable of the function's environment against every setting (bench case cold-start).
 */
function bagDistance(a: string, b: string): number {
  for (let i = 0; i < a.length; i++) bag[a.charCodeAt(i) & 127] = (bag[a.charCodeAt(i) & 127] as number) + 1;
  for (let i = 0; i < b.length; i++) bag[b.charCodeAt(i) & 127] = (bag[b.charCodeAt(i) & 127] as number) - 1;
  let surplus = 0;
  let deficit = 0;
  const settle = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i) & 127;
      const count = bag[code] as number;
      if (count > 0) surplus += count;
      else deficit -= count;
      bag[code] = 0;
    }
  };
  settle(a);
  settle(b);
  return Math.max(surplus, deficit);
}

/** Levenshtein distance, stopping early once it exceeds `limit` (names are short). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit || bagDistance(a, b) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * How far a name may be from one of ours to count as its misspelling: 2 edits, but 1 for names of 5
 * letters or fewer, which 2 edits would confuse with unrelated variables (HOST is 2 from PORT).
 */
function misspellingLimit(known: string): number {
  return known.length <= 5 ? 1 : 2;
}

/** The setting a variable most likely meant, when it is not one but looks like one; undefined otherwise. */
export function intendedSetting(variable: string): string | undefined {
  const known: readonly string[] = SETTING_NAMES;
  if (known.includes(variable)) return undefined;
  const upper = variable.toUpperCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of SETTING_NAMES) {
    const limit = misspellingLimit(name);
    const distance = editDistance(upper, name, limit);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** True for a variable that carries one of our prefixes without being one of our settings. */
function hasOurPrefix(variable: string): boolean {
  const known: readonly string[] = SETTING_NAMES;
  return (
    !known.includes(variable) && OUR_PREFIXES.some((prefix) => variable.toUpperCase().startsWith(prefix))
  );
}

/**
 * Mistakes the configuration does not refuse but that would show only at the first tool call, each as
 * one line naming the fix: SigV4 signing for a URL that is not AMP's, and variables that look like one
 * of ours but are not (`PROMETHEUS_ULR`). Printed at start by `npm start`, `invoke local`, the stdio
 * entry and a Lambda cold start.
 */
export function configWarnings(config: Config, env: Env = process.env): string[] {
  const warnings: string[] = [];
  const mismatch = sigv4Mismatch(config.prometheusUrl, config.prometheusAuth);
  if (mismatch !== undefined) warnings.push(`Warning: ${mismatch}`);
  if (config.prometheusSecret?.kind === "literal") {
    warnings.push(
      "Warning: PROMETHEUS_SECRET holds the credentials themselves: fine on this machine, but a deployment reads them from Secrets Manager (the secret's ARN) or SSM (ssm:/parameter).",
    );
  }
  for (const backend of config.backends ?? []) {
    if (backend.secret?.kind === "literal") {
      warnings.push(
        `Warning: BACKENDS backend "${backend.name}" holds its credentials themselves in "secret": fine on this machine, but a deployment reads them from Secrets Manager (the secret's ARN) or SSM (ssm:/parameter).`,
      );
    }
  }
  for (const variable of Object.keys(env).sort()) {
    const intended = intendedSetting(variable);
    if (intended !== undefined) {
      warnings.push(
        `Warning: ${variable} is not a setting of this server and is ignored; did you mean ${intended}?`,
      );
    } else if (hasOurPrefix(variable)) {
      warnings.push(
        `Warning: ${variable} is not a setting of this server and is ignored (the settings are in the README, "Configuration").`,
      );
    }
  }
  return warnings;
}

const AUTH_WORDS: Readonly<Record<AuthMode, string>> = {
  sigv4: "SigV4 (AMP)",
  none: "none",
  basic: "basic auth",
  bearer: "bearer token",
};

/** One line saying which Prometheus the tools query and how: printed when a local server starts. */
export function describeTarget(config: Config): string {
  if (config.backends !== undefined) {
    const each = config.backends.map(
      (backend) =>
        `${backend.name}${backend.isDefault ? " (default)" : ""} = ${redactCredentials(backend.url)} [${backend.kind}, auth ${AUTH_WORDS[backend.auth]}]`,
    );
    return `Prometheus backends: ${each.join("; ")}${config.backendsOnly ? " (backends only: workspace_id takes their names)" : "; AMP workspaces by workspace_id as well"}`;
  }
  const where =
    config.prometheusUrl === undefined
      ? "no PROMETHEUS_URL: AMP workspaces by workspace_id (GetAvailableWorkspaces lists them)"
      : redactCredentials(config.prometheusUrl);
  const auth = AUTH_WORDS[config.prometheusAuth];
  const headers = Object.keys(config.prometheusHeaders);
  return `Prometheus: ${where}, auth ${auth}${headers.length > 0 ? ` (headers ${headers.join(", ")})` : ""}${config.plainPrometheus ? " (plain Prometheus: no workspace_id, region or profile)" : ""}`;
}
