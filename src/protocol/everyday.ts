import { RELATED_TASK_META_KEY } from "../mcp/sdk.js";

/*
 * The shapes nearly every message has, recognised by hand. The SDK's zod schemas are far slower a
 * check, and the SDK already runs them once on every request it receives (its transport recognition,
 * and for tools/call its Server's params check): ours, to classify the message and to check its
 * params, were a visible share of a warm tools/call (bench case warm-tools-call). A check here only ever says "surely
 * valid": anything else (any key it does not know, a progress token, a task) is still judged by the
 * SDK's schema. test/property/everyday.test.ts checks that everything accepted here, the schema accepts.
 */

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_KEYS = new Set(["jsonrpc", "method", "params"]);

/** An object made by JSON.parse (or written as a literal): no class, no null prototype. */
function isLiteralObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}

/** `_meta` absent, or present without the two keys the SDK gives a shape (progress token, related task). */
function hasPlainMeta(params: Record<string, unknown>): boolean {
  const meta = params._meta;
  if (meta === undefined) return true;
  return (
    isLiteralObject(meta) &&
    !Object.hasOwn(meta, "progressToken") &&
    !Object.hasOwn(meta, RELATED_TASK_META_KEY)
  );
}

/**
 * True when `value` is surely a JSON-RPC request (`withId`) or notification the SDK's strict message
 * schema accepts: exactly the message keys, a string method, a string or safe-integer id, params
 * absent or an object whose `_meta` (if any) is plain.
 */
export function isEverydayMessage(value: unknown, withId: boolean): boolean {
  if (!isLiteralObject(value) || value.jsonrpc !== "2.0" || typeof value.method !== "string") return false;
  if (!hasOnlyKeys(value, withId ? REQUEST_KEYS : NOTIFICATION_KEYS)) return false;
  if (withId && typeof value.id !== "string" && !Number.isSafeInteger(value.id)) return false;
  const params = value.params;
  return params === undefined || (isLiteralObject(params) && hasPlainMeta(params));
}

const CALL_KEYS = new Set(["name", "arguments", "_meta"]);
const LIST_KEYS = new Set(["cursor", "_meta"]);
const META_ONLY = new Set(["_meta"]);

/** Per method: true when its params surely satisfy the SDK's request schema for it. */
const EVERYDAY_PARAMS = new Map<string, (params: unknown) => boolean>([
  [
    "tools/call",
    (params) =>
      isLiteralObject(params) &&
      hasOnlyKeys(params, CALL_KEYS) &&
      typeof params.name === "string" &&
      (params.arguments === undefined || isLiteralObject(params.arguments)) &&
      hasPlainMeta(params),
  ],
  [
    "tools/list",
    (params) =>
      params === undefined ||
      (isLiteralObject(params) &&
        hasOnlyKeys(params, LIST_KEYS) &&
        (params.cursor === undefined || typeof params.cursor === "string") &&
        hasPlainMeta(params)),
  ],
  [
    "ping",
    (params) =>
      params === undefined ||
      (isLiteralObject(params) && hasOnlyKeys(params, META_ONLY) && hasPlainMeta(params)),
  ],
]);

/** True when `params` surely satisfy the SDK's request schema for `method` (false: ask the schema). */
export function hasEverydayParams(method: string, params: unknown): boolean {
  return EVERYDAY_PARAMS.get(method)?.(params) ?? false;
}
