/**
 * The kinds of setting the schema (schema.ts) is made of: each a zod schema from the variable's trimmed
 * value (undefined when unset or blank) to what the application uses, and a refusal whose message is
 * the `expected …` of the one-line ConfigError (index.ts quotes the value, or not for a secret).
 */
import * as z from "zod";
import { entriesOf } from "./errors.js";

/** What a setting's value should have been: the `expected …` of its error line. */
export class Refusal {
  constructor(readonly expected: string) {}
}

/** Stops a setting's parse with what was expected. */
export function refuse(expected: string): never {
  throw new Refusal(expected);
}

/** What the docs table says of a setting, and whether its value may be repeated in an error line. */
export interface SettingMeta {
  /** One line: what the setting does. */
  description: string;
  /**
   * The default as the variable would spell it (`sigv4`, `1048576`), when it is one fixed value; the
   * deploy scripts pass it to the function when the operator sets nothing.
   */
  fixedDefault?: string;
  /** The default column of the docs table when it is not `fixedDefault` in code font ("unset" else). */
  documentedDefault?: string;
  /** The value may hold a credential: an error names the variable alone. */
  secret?: boolean;
}

/**
 * A setting read by `parse` (which may `refuse`), `fallback` when unset. Errors of `parse` other than
 * a refusal are bugs and propagate.
 */
export function setting<T, F>(parse: (raw: string) => T, fallback: F, meta: SettingMeta) {
  return z
    .string()
    .optional()
    .transform(refusing((raw: string | undefined) => (raw === undefined ? fallback : parse(raw))))
    .meta({ ...meta });
}

/** A zod transform of `parse`: its refusal becomes the value's one issue. */
function refusing<I, T>(parse: (raw: I) => T) {
  return (raw: I, ctx: z.RefinementCtx): T => {
    try {
      return parse(raw);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      ctx.addIssue({ code: "custom", message: error.expected });
      return z.NEVER;
    }
  };
}

/** A field of a JSON object (a BACKENDS entry's, backendSchema.ts): any JSON value, read by `parse`, `fallback` when absent. */
export function jsonField<T, F>(parse: (value: unknown) => T, fallback: F, meta: SettingMeta) {
  return requiredJsonField((value) => (value === undefined ? fallback : parse(value)), meta);
}

/** A field of a JSON object that must be there: `parse` sees undefined when it is absent, and refuses it. */
export function requiredJsonField<T>(parse: (value: unknown) => T, meta: SettingMeta) {
  return z
    .unknown()
    .optional()
    .transform(refusing(parse))
    .meta({ ...meta });
}

/** Any text, as given (trimmed). */
export function text(meta: SettingMeta) {
  return setting((raw) => raw, undefined, meta);
}

/** One of `allowed`, any case; the value is the allowed spelling. */
export function oneOf<T extends string, F extends T | undefined>(
  allowed: readonly T[],
  fallback: F,
  meta: SettingMeta,
) {
  return setting(
    (raw) =>
      allowed.find((option) => option.toLowerCase() === raw.toLowerCase()) ??
      refuse(`one of ${allowed.join(", ")}`),
    fallback,
    { ...(fallback === undefined ? {} : { fixedDefault: fallback }), ...meta },
  );
}

/** A whole number from `min` (default 1) to `max`. */
export function wholeNumber<F extends number | undefined>(
  fallback: F,
  range: { min?: number; max: number },
  meta: SettingMeta,
) {
  const min = range.min ?? 1;
  return setting(
    (raw) => {
      if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > range.max) {
        refuse(`a whole number from ${min} to ${range.max}`);
      }
      return Number(raw);
    },
    fallback,
    { ...(fallback === undefined ? {} : { fixedDefault: String(fallback) }), ...meta },
  );
}

/** true/false (also 1/0, yes/no); unset is false. */
export function boolean(meta: SettingMeta) {
  return setting(
    (raw) => {
      if (/^(true|1|yes)$/i.test(raw)) return true;
      if (/^(false|0|no)$/i.test(raw)) return false;
      return refuse("true or false");
    },
    false,
    { fixedDefault: "false", ...meta },
  );
}

/** `on`/`off` (also true/false, 1/0, yes/no). */
export function onOff<F extends boolean | undefined>(fallback: F, meta: SettingMeta) {
  return setting(
    (raw) => {
      if (/^(on|true|1|yes)$/i.test(raw)) return true;
      if (/^(off|false|0|no)$/i.test(raw)) return false;
      return refuse("on or off");
    },
    fallback,
    { ...(fallback === undefined ? {} : { fixedDefault: fallback ? "on" : "off" }), ...meta },
  );
}

/** A CloudWatch namespace or a service name: printable ASCII CloudWatch accepts, not AWS's own namespaces. */
export function metricName(fallback: string, meta: SettingMeta) {
  return setting(
    (raw) => {
      if (!/^[A-Za-z0-9._\-/#: ]{1,255}$/.test(raw) || raw.startsWith("AWS/")) {
        refuse("1 to 255 letters, digits, spaces or . _ - / # :, not starting with AWS/");
      }
      return raw;
    },
    fallback,
    { fixedDefault: fallback, ...meta },
  );
}

/** An http(s) URL, as given; refused otherwise. */
export function httpUrlOf(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("an http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") refuse("an http(s) URL");
  return raw;
}

/** An http(s) URL, as given. */
export function httpUrl(meta: SettingMeta) {
  return setting(httpUrlOf, undefined, meta);
}

/** A comma-separated list, each entry checked by `entry` (which may `refuse`); unset is `fallback`. */
export function list<T, F>(entry: (value: string) => T, fallback: F, meta: SettingMeta) {
  return setting((raw) => entriesOf(raw).map(entry), fallback, meta);
}
