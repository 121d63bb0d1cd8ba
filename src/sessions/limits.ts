import { hasLoneSurrogate } from "../util/json.js";
import { cutText } from "../util/text.js";
import { SessionDataError, type SessionRecord } from "./store.js";

/**
 * What a session keeps of what the client sent (its initialize params: clientInfo, capabilities…), checked
 * before anything runs or is stored. Real clients send a few hundred bytes to a few KB, nested 4 or 5 levels:
 * these bounds are far above that, and far below what the stores hold (a DynamoDB item: 400 KB, 32 levels).
 */
export const SESSION_DATA_LIMITS: UnstorableLimits = {
  /** UTF-8 bytes of the params as JSON. */
  maxBytes: 65_536,
  /** Objects and arrays within one another, the params object being level 1. */
  maxDepth: 20,
};

/**
 * Numbers both stores keep exactly: DynamoDB's marshaller refuses magnitudes beyond 2^53 - 1 (and reads
 * larger ones back as BigInt), DynamoDB itself magnitudes below 1e-130. JSON's own numbers fit in 38 digits.
 */
export const MAX_STORED_MAGNITUDE = Number.MAX_SAFE_INTEGER;
export const MIN_STORED_MAGNITUDE = 1e-130;

/** What every store refuses whoever calls it: nesting below DynamoDB's 32 levels, however the item's own level counts. */
export const STORE_MAX_DEPTH = 30;

export interface UnstorableLimits {
  maxBytes: number;
  maxDepth: number;
}

/** Throws SessionDataError (answered 400, -32602) when initialize params are not something a session keeps. */
export function checkInitializeParams(params: unknown): void {
  const problem = describeUnstorable(params, SESSION_DATA_LIMITS);
  if (problem !== undefined) throw new SessionDataError(`Invalid params for initialize: ${problem}`);
}

/** A store's own guard: throws SessionDataError when the record's client data cannot be kept exactly. */
export function checkStorable(record: SessionRecord): void {
  const problem = describeUnstorable(record.initializeParams, {
    maxBytes: Number.POSITIVE_INFINITY,
    maxDepth: STORE_MAX_DEPTH,
  });
  if (problem !== undefined) throw new SessionDataError(`Invalid params for initialize: ${problem}`);
}

interface Visit {
  value: unknown;
  /** Containers from the root to this value's parent. */
  depth: number;
  parent: Visit | undefined;
  key: string | number | undefined;
}

/**
 * Why `root` (a parsed JSON value) cannot be stored as it is, or undefined when it can. Iterative, so any
 * nesting is answered without a stack overflow; stops at the first problem, and as soon as the size is
 * known to be over the limit.
 */
export function describeUnstorable(root: unknown, limits: UnstorableLimits): string | undefined {
  const stack: Visit[] = [{ value: root, depth: 0, parent: undefined, key: undefined }];
  /** A lower bound of the JSON size in bytes (one UTF-16 unit is at least one UTF-8 byte). */
  let bytes = 0;
  /** The longest string (value or key) seen so far: what to shorten when the whole is too large. */
  let longest: { where: Visit; length: number; key: boolean } | undefined;
  const tooLarge = (size: string) => {
    const hint = longest
      ? `; the longest string is ${longest.key ? "the key of " : ""}${pathOf(longest.where)}, ${longest.length} characters`
      : "";
    return `params take ${size} bytes as JSON; a session stores at most ${limits.maxBytes}${hint}`;
  };
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const { value } = node;
    switch (typeof value) {
      case "string":
        if (hasLoneSurrogate(value)) return notUnicode(pathOf(node));
        bytes += value.length + 2;
        if (value.length > (longest?.length ?? 0))
          longest = { where: node, length: value.length, key: false };
        break;
      case "number":
        if (!isStorableNumber(value)) {
          return (
            `${pathOf(node)} is ${value}, a number a session cannot store exactly: numbers must be 0 or ` +
            `between ${MIN_STORED_MAGNITUDE} and ${MAX_STORED_MAGNITUDE} (2^53 - 1) in magnitude`
          );
        }
        bytes += String(value).length;
        break;
      case "boolean":
        bytes += value ? 4 : 5;
        break;
      case "object": {
        if (value === null) {
          bytes += 4;
          break;
        }
        const depth = node.depth + 1;
        if (depth > limits.maxDepth) {
          return `${pathOf(node)} is nested ${depth} levels deep, deeper than the ${limits.maxDepth} a session stores`;
        }
        const entries: [string | number, unknown][] = Array.isArray(value)
          ? value.map((child, index) => [index, child])
          : Object.entries(value);
        // Brackets and commas; for an object, each key with its quotes and colon.
        bytes += 2 + Math.max(entries.length - 1, 0);
        for (const [key, child] of entries) {
          const entry: Visit = { value: child, depth, parent: node, key };
          if (typeof key === "string") {
            if (hasLoneSurrogate(key)) return notUnicode(`the key of ${pathOf(entry)}`);
            // DynamoDB's marshaller tells a map by its constructor: an own "constructor" key hides it.
            if (key === "constructor")
              return `${pathOf(entry)}: a key named "constructor" cannot be stored in a session`;
            bytes += key.length + 3;
            if (key.length > (longest?.length ?? 0))
              longest = { where: entry, length: key.length, key: true };
          }
          stack.push(entry);
        }
        break;
      }
      default:
        return `${pathOf(node)} is not a JSON value`;
    }
    if (bytes > limits.maxBytes) return tooLarge(`more than ${limits.maxBytes}`);
  }
  if (Number.isFinite(limits.maxBytes)) {
    const exact = Buffer.byteLength(JSON.stringify(root));
    if (exact > limits.maxBytes) return tooLarge(String(exact));
  }
  return undefined;
}

function isStorableNumber(value: number): boolean {
  const magnitude = Math.abs(value);
  return (
    Number.isFinite(value) &&
    magnitude <= MAX_STORED_MAGNITUDE &&
    (magnitude === 0 || magnitude >= MIN_STORED_MAGNITUDE)
  );
}

function notUnicode(where: string): string {
  return `${where} is not well-formed Unicode (it holds a lone surrogate), which a session cannot store`;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const MAX_SEGMENT = 40;

/** `params.clientInfo.name`, `params.list[3]`, `params["odd key"]`; long paths and keys are shortened. */
function pathOf(node: Visit): string {
  const keys: (string | number)[] = [];
  for (let at: Visit | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
  keys.reverse();
  const segments = keys.map((key) => {
    if (typeof key === "number") return `[${key}]`;
    const short = cutText(key, MAX_SEGMENT);
    return IDENTIFIER.test(key) && key.length <= MAX_SEGMENT ? `.${key}` : `[${JSON.stringify(short)}]`;
  });
  const shown = segments.length > 12 ? [...segments.slice(0, 6), ".…", ...segments.slice(-5)] : segments;
  return `params${shown.join("")}`;
}
