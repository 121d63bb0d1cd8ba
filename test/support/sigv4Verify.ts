import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";

/** The fake static credentials vitest.config.ts puts in the environment. */
export const TEST_ACCESS_KEY_ID = "AKIDTESTFAKE";
export const TEST_SECRET_ACCESS_KEY = "test-secret-not-real";

export interface SigV4Expectation {
  region: string;
  /** Default `aps`. */
  service?: string;
  /** Default TEST_ACCESS_KEY_ID. */
  accessKeyId?: string;
  /** Default TEST_SECRET_ACCESS_KEY. */
  secretAccessKey?: string;
}

export interface RawRequest {
  method: string;
  /** Path and query exactly as received (`req.url`). */
  rawUrl: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/**
 * Recomputes the SigV4 signature of a request as received on the wire (raw path, raw query, the headers named
 * in SignedHeaders, x-amz-date as signing time) and compares it with the one the client sent.
 */
export async function verifySigV4(request: RawRequest, expected: SigV4Expectation): Promise<Verdict> {
  const service = expected.service ?? "aps";
  const accessKeyId = expected.accessKeyId ?? TEST_ACCESS_KEY_ID;
  const secretAccessKey = expected.secretAccessKey ?? TEST_SECRET_ACCESS_KEY;

  const authorization = header(request.headers, "authorization");
  if (!authorization) return fail("missing Authorization header");
  const auth = AUTHORIZATION.exec(authorization);
  if (!auth) return fail(`malformed Authorization header: ${authorization}`);
  const [, credential = "", signedHeaderList = "", signature = ""] = auth;

  const [keyId, scopeDate, scopeRegion, scopeService, terminator] = credential.split("/");
  if (keyId !== accessKeyId) return fail(`unknown access key ${keyId}`);
  if (scopeRegion !== expected.region)
    return fail(`credential scope region ${scopeRegion} != ${expected.region}`);
  if (scopeService !== service) return fail(`credential scope service ${scopeService} != ${service}`);
  if (terminator !== "aws4_request") return fail("credential scope does not end in aws4_request");

  const amzDate = header(request.headers, "x-amz-date");
  const dateMatch = amzDate ? AMZ_DATE.exec(amzDate) : null;
  if (!amzDate || !dateMatch) return fail("missing or malformed x-amz-date");
  if (!amzDate.startsWith(scopeDate ?? "-"))
    return fail("x-amz-date does not match the credential scope date");
  const [, y, mo, d, h, mi, s] = dateMatch.map(Number) as number[];
  const signingDate = new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 0, h ?? 0, mi ?? 0, s ?? 0));
  if (Math.abs(Date.now() - signingDate.getTime()) > MAX_CLOCK_SKEW_MS)
    return fail("x-amz-date is too far from now");

  const signedHeaders = signedHeaderList.split(";");
  if (!signedHeaders.includes("host")) return fail("host is not a signed header");
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = header(request.headers, name);
    if (value === undefined) return fail(`signed header ${name} is missing`);
    headers[name] = value;
  }

  const declaredHash = headers["x-amz-content-sha256"];
  if (declaredHash !== undefined && declaredHash !== "UNSIGNED-PAYLOAD") {
    const actual = createHash("sha256").update(request.body).digest("hex");
    if (declaredHash !== actual) return fail("x-amz-content-sha256 does not match the body");
  }

  const { path, query } = splitRawUrl(request.rawUrl);
  if (query === undefined) return fail("query string is not valid percent-encoding");

  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region: expected.region,
    service,
    sha256: Sha256,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: "http:",
      hostname: headers.host?.split(":")[0] ?? "",
      path,
      query,
      headers,
      ...(request.body.length > 0 ? { body: request.body } : {}),
    },
    {
      signingDate,
      signableHeaders: new Set(signedHeaders),
      // The signer would otherwise add and sign a payload-hash header the client did not sign.
      ...(declaredHash === undefined ? { unsignableHeaders: new Set(["x-amz-content-sha256"]) } : {}),
    },
  );
  const recomputed = AUTHORIZATION.exec(String(signed.headers.authorization ?? ""));
  if (recomputed?.[2] !== signedHeaderList)
    return fail(`SignedHeaders ${signedHeaderList} != ${recomputed?.[2]}`);
  if (recomputed[3] !== signature) return fail("signature mismatch");
  return { ok: true };
}

function fail(reason: string): Verdict {
  return { ok: false, reason };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** Splits `path?query`, decoding the query with decodeURIComponent only: a raw `+` stays `+`, as AWS sees it. */
export function splitRawUrl(rawUrl: string): {
  path: string;
  query: Record<string, string | string[]> | undefined;
} {
  const mark = rawUrl.indexOf("?");
  const path = mark === -1 ? rawUrl : rawUrl.slice(0, mark);
  const raw = mark === -1 ? "" : rawUrl.slice(mark + 1);
  const query: Record<string, string | string[]> = {};
  try {
    for (const pair of raw.split("&")) {
      if (pair === "") continue;
      const eq = pair.indexOf("=");
      const key = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? "" : decodeURIComponent(pair.slice(eq + 1));
      const previous = query[key];
      query[key] =
        previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
    }
  } catch {
    return { path, query: undefined };
  }
  return { path, query };
}

export async function readBody(stream: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
