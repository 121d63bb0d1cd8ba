/**
 * The fields of one BACKENDS entry: each one's type, default and one line of documentation, in one zod
 * object, as schema.ts holds the settings (the docs' table of backend fields is checked against it,
 * test/unit/configSchema.test.ts). Each field is judged alone here; what fields say together (auth's
 * default from the URL, credentials in the URL, the secret an auth needs) is backends.ts's. A refusal is
 * the error's tail after `backend "<name>" `; none quotes a secret or a header's value.
 */
import * as z from "zod";
import type { AuthMode } from "../prometheus/auth.js";
import { BACKEND_KINDS } from "../prometheus/backends.js";
import { parseHeaders } from "../prometheus/headers.js";
import { isTenant, TENANT_SET } from "../prometheus/tenants.js";
import { jsonField, refuse, requiredJsonField } from "./fields.js";

export const AUTH_MODES: readonly AuthMode[] = ["sigv4", "none", "basic", "bearer"];
const MAX_DESCRIPTION = 200;

/** An http(s) URL, trimmed. */
function httpUrl(field: string) {
  return (value: unknown): string => {
    if (typeof value === "string") {
      try {
        const url = new URL(value.trim());
        if (url.protocol === "http:" || url.protocol === "https:") return value.trim();
      } catch {
        // Refused below.
      }
    }
    return refuse(`"${field}" as an http(s) URL`);
  };
}

/** One of `allowed`, any case; the value is the allowed spelling. */
function oneOf<T extends string>(field: string, allowed: readonly T[]) {
  return (value: unknown): T =>
    allowed.find((option) => typeof value === "string" && option === value.toLowerCase()) ??
    refuse(`"${field}" as one of ${allowed.join(", ")}`);
}

function secret(value: unknown): string {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : refuse('"secret" as a string');
}

function headers(value: unknown): Readonly<Record<string, string>> {
  const text = typeof value === "string" ? value : isObject(value) ? JSON.stringify(value) : undefined;
  if (text === undefined) refuse('"headers" as a JSON object of names to values');
  try {
    return parseHeaders(text);
  } catch (error) {
    return refuse(`"headers" with ${(error as Error).message}`);
  }
}

/** One line; blank is none. */
function description(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_DESCRIPTION || /[\r\n]/.test(value)) {
    refuse(`"description" as one line of at most ${MAX_DESCRIPTION} characters`);
  }
  return value.trim() === "" ? undefined : value.trim();
}

function isDefault(value: unknown): boolean {
  return typeof value === "boolean" ? value : refuse('"default" as true or false');
}

/** Each a tenant a caller can have (one outside the set could never be matched), without repeats. */
function allowedTenants(value: unknown): readonly string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((tenant) => typeof tenant !== "string" || !isTenant(tenant.trim()))
  ) {
    refuse(`"allowed_tenants" as a non-empty list of tenants, each ${TENANT_SET}`);
  }
  return [...new Set(value.map((tenant: string) => tenant.trim()))];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The entry's fields, in the order the docs' table and an unknown field's error list them. */
function entrySchema() {
  return z.strictObject({
    url: requiredJsonField(httpUrl("url"), {
      description: "required: its Prometheus URL; `{tenant}` in the path is each caller's tenant",
    }),
    auth: jsonField(oneOf("auth", AUTH_MODES), undefined, {
      description: "how its calls authenticate: sigv4, none, basic or bearer",
      documentedDefault: "`sigv4` for an AMP URL, else `none`",
    }),
    secret: jsonField(secret, undefined, {
      description: "with basic / bearer: a Secrets Manager ARN or ssm:/parameter holding the credentials",
      secret: true,
    }),
    headers: jsonField(headers, {} as Readonly<Record<string, string>>, {
      description: "extra headers on its requests, as PROMETHEUS_HEADERS",
      secret: true,
    }),
    alertmanager_url: jsonField(httpUrl("alertmanager_url"), undefined, {
      description: "the Alertmanager ListSilences reads for it",
    }),
    kind: jsonField(oneOf("kind", BACKEND_KINDS), undefined, {
      description: "what server it is, as PROMETHEUS_KIND",
      documentedDefault: "from the URL",
    }),
    description: jsonField(description, undefined, {
      description: `one line (at most ${MAX_DESCRIPTION} characters) the discovery tool shows`,
    }),
    default: jsonField(isDefault, false, {
      description: "the backend a call without workspace_id uses (at most one; the only backend is)",
    }),
    allowed_tenants: jsonField(allowedTenants, undefined, {
      description: "the tenants (TENANT_CLAIM) that may use it; unset, every caller may",
    }),
  });
}

export type BackendEntrySchema = ReturnType<typeof entrySchema>;
/** One entry, each field read alone. */
export type BackendEntry = z.output<BackendEntrySchema>;
export type BackendField = keyof BackendEntry & string;

let built: BackendEntrySchema | undefined;

/** The entry's schema, built on first use: a configuration without BACKENDS never builds it (bench case cold-start). */
export function backendEntrySchema(): BackendEntrySchema {
  built ??= entrySchema();
  return built;
}
