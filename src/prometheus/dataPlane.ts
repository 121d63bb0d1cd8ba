// The data plane: GETs of the Prometheus (or Alertmanager) HTTP API, signed or not, retried within the
// deadline, optional parameters dropped for servers that reject them. Its parts: dataPlaneCall.ts (what a call
// is given), dataPlaneAttempt.ts (one attempt), dataPlaneFailures.ts (what a failure means).

import { setTimeout as sleep } from "node:timers/promises";
import { timeLeft } from "../context.js";
import { ToolError } from "../errors.js";
import { traced } from "../tracing/trace.js";
import { backoffDelay, PROMETHEUS_BACKOFF } from "../util/backoff.js";
import { Memo } from "../util/memoize.js";
import type { AnswerSink } from "./answerReader.js";
import { authorizationOf, noTenant, type UpstreamAuth } from "./auth.js";
import type { Credentials } from "./credentials.js";
import { attemptOnce, type Fetch, Tally } from "./dataPlaneAttempt.js";
import type { DataPlaneCall, DataPlaneLimits, Service } from "./dataPlaneCall.js";
import { cancelled, type Refusal, Rejected, Retryable } from "./dataPlaneFailures.js";
import { buildQueryString, type QueryParams } from "./queryString.js";
import type { Regions } from "./regions.js";
import { redactCredentials, splitCredentials } from "./urls.js";

export type { AnswerSink };

const DEFAULT_ATTEMPTS = 3;
/** Memory stays bounded whatever the answer's size; this bounds the time spent reading one. */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** Servers remembered as rejecting a parameter; a bound keeps a stream of odd URLs from growing it. */
const MAX_REMEMBERED_REJECTIONS = 1_000;
/** SigV4 fetchers kept per handler, one per (region, profile); the least recently used go first. */
export const MAX_CACHED_SIGNERS = 16;

/**
 * The Prometheus HTTP API: plain `fetch` (`auth: "none"`), or a SigV4-signing fetch per (region,
 * profile) for AMP, its signer loaded on first use.
 */
export class DataPlane {
  private readonly signedFetchers = new Memo<Promise<Fetch>>(MAX_CACHED_SIGNERS);
  /** `<base URL><path> <parameter>` for each optional parameter a server rejected. */
  private readonly rejectedParams = new Set<string>();

  /** `regions`, when given, refuses a region outside the function's partition before a signer is built. */
  constructor(
    private readonly credentials: Credentials,
    private readonly auth: UpstreamAuth,
    private readonly limits: DataPlaneLimits = { maxAnswerBytes: MAX_ANSWER_BYTES },
    private readonly regions?: Regions,
  ) {}

  /**
   * A 403: under SigV4, AMP refusing the signature or the caller's aps permissions (and when the URL is
   * not AMP's, the advice to sign nothing); unsigned, the server or what stands in front of it.
   */
  private refusalFor(auth: UpstreamAuth): Refusal {
    return (who, detail, where) => this.refusal(auth, who, detail, where);
  }

  private refusal(auth: UpstreamAuth, who: Service, detail: string, where: string): ToolError {
    const said = detail ? `: ${detail}` : "";
    if (auth.mode === "basic" || auth.mode === "bearer") {
      const headers = auth.setting === undefined ? "PROMETHEUS_HEADERS" : "backend's headers";
      return new ToolError(
        `${who} refused the request (HTTP 403 at ${where})${said}: the credentials from the ${auth.secret?.origin ?? "secret"} were accepted but may not read this (a tenant or permission). Check the ${headers} (a tenant header) and the account's rights.`,
        "denied",
      );
    }
    if (auth.mode === "none") {
      return new ToolError(
        `${who} refused the request (HTTP 403 at ${where})${said}. Check the user:password@ of its URL, or what stands in front of it (a proxy, an auth gateway).`,
        "denied",
      );
    }
    const advice = this.credentials.advice;
    if (advice !== undefined) {
      return new ToolError(
        `${who} refused the SigV4-signed request (HTTP 403 at ${where})${said}. ${advice}`,
        "denied",
      );
    }
    return new ToolError(
      `Amazon Managed Prometheus refused the request (HTTP 403): the SigV4 signature or the caller's aps permissions were rejected${said || "."}`,
      "denied",
    );
  }

  /** How many SigV4 fetchers are kept (at most MAX_CACHED_SIGNERS). */
  get cachedSigners(): number {
    return this.signedFetchers.size;
  }

  /**
   * GETs `<baseApiUrl><path>?<params>` and streams the answer's `data` into a sink made by `makeSink`,
   * never holding the whole answer. Retries network errors, 429 and 5xx within the deadline; any other
   * failure is thrown as a ToolError. Redirects are never followed. A `user:password@` in the URL is
   * sent as Basic auth (`auth: "none"`), never in the URL nor in a message.
   *
   * A traced request gets one X-Ray subsegment `Prometheus <path>` per call: its attempts and last HTTP
   * status annotated, the host and path (never the query) as metadata.
   */
  get<T>(
    baseApiUrl: string,
    path: string,
    params: QueryParams,
    call: DataPlaneCall,
    makeSink: () => AnswerSink<T>,
  ): Promise<T> {
    return traced(
      call.context.trace,
      `${call.service ?? "Prometheus"} ${path}`,
      (span) => {
        span?.describe("target", describeTarget(baseApiUrl, path));
        return this.getAnswer(baseApiUrl, path, params, call, makeSink, span && new Tally(span));
      },
      // Prometheus refused the request as such (a query it cannot parse): the caller's error, not a fault.
      (error) => error instanceof Rejected && error.status < 500,
    );
  }

  private async getAnswer<T>(
    baseApiUrl: string,
    path: string,
    params: QueryParams,
    call: DataPlaneCall,
    makeSink: () => AnswerSink<T>,
    tally: Tally | undefined,
  ): Promise<T> {
    const split = splitCredentials(baseApiUrl);
    if (split.basicAuth !== undefined) {
      return this.getAnswer(
        split.url,
        path,
        params,
        { ...call, basicAuth: call.basicAuth ?? split.basicAuth },
        makeSink,
        tally,
      );
    }
    const optional = (call.optionalParams ?? []).filter((name) => params[name] !== undefined);
    const rejectionKey = (name: string) => `${baseApiUrl}${path} ${name}`;
    const unsent = optional.filter((name) => this.rejectedParams.has(rejectionKey(name)));
    try {
      return await this.getWith(baseApiUrl, path, without(params, unsent), call, makeSink, tally);
    } catch (error) {
      const rejected =
        error instanceof Rejected && error.status === 400
          ? optional.filter((name) => !unsent.includes(name) && error.detail.includes(name))
          : [];
      if (rejected.length === 0) throw error;
      if (this.rejectedParams.size >= MAX_REMEMBERED_REJECTIONS) this.rejectedParams.clear();
      for (const name of rejected) this.rejectedParams.add(rejectionKey(name));
      return this.getWith(baseApiUrl, path, without(params, [...unsent, ...rejected]), call, makeSink, tally);
    }
  }

  private async getWith<T>(
    baseApiUrl: string,
    path: string,
    params: QueryParams,
    call: DataPlaneCall,
    makeSink: () => AnswerSink<T>,
    tally: Tally | undefined,
  ): Promise<T> {
    const query = buildQueryString(params);
    const url = `${baseApiUrl}${path}${query ? `?${query}` : ""}`;
    const where = describeTarget(baseApiUrl, path);
    const maxAttempts = call.maxAttempts ?? DEFAULT_ATTEMPTS;
    const auth = call.auth ?? this.auth;
    if (call.basicAuth !== undefined && auth.mode === "sigv4") {
      throw new ToolError(
        "A Prometheus URL with user:password@ cannot be used with SigV4 signing (PROMETHEUS_AUTH=sigv4): remove the credentials from the URL, or set PROMETHEUS_AUTH=none for a plain Prometheus with basic auth.",
        "misconfigured",
      );
    }
    const fetcher = await this.fetcherFor(call, auth);
    const who = call.service ?? "Prometheus";
    let sent = await this.requestHeaders(call, auth);
    call.context.progress?.step(`Asked ${who} (${where})`);

    for (let attempt = 0; ; attempt++) {
      tally?.attempted();
      try {
        return await attemptOnce(
          fetcher,
          url,
          where,
          call,
          sent.headers,
          () => ({ sink: makeSink(), ...this.limits }),
          tally,
          this.refusalFor(auth),
        );
      } catch (error) {
        if (error instanceof Rejected && error.status === 401 && sent.secret !== undefined) {
          if (sent.reread || !auth.secret?.rereadable) throw credentialsRefused(auth, who, where);
          // Rotated since it was read: read it again, once.
          call.context.progress?.step(
            `${who} refused the credentials (HTTP 401): reading them again`,
            "warning",
          );
          sent = { ...(await this.requestHeaders(call, auth, sent.secret)), reread: true };
          continue;
        }
        if (!(error instanceof Retryable)) throw error;
        const delay = backoffDelay(attempt, PROMETHEUS_BACKOFF);
        if (attempt + 1 >= maxAttempts || timeLeft(call.context) <= delay) {
          const sentence = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
          throw new ToolError(
            attempt > 0 ? `${sentence} Gave up after ${attempt + 1} attempts.` : sentence,
            error.kind,
          );
        }
        const wait = (delay / 1000).toFixed(1);
        call.context.progress?.step(
          `Attempt ${attempt + 2} of ${maxAttempts} after ${error.reason} from ${who}, in ${wait} s`,
          "warning",
        );
        try {
          await sleep(delay, undefined, { signal: call.context.signal });
        } catch {
          throw cancelled(who, where);
        }
      }
    }
  }

  /**
   * Every attempt's headers: PROMETHEUS_HEADERS, and the Authorization of the URL's user:password@ or
   * of the secret (read again when `refused` is the value the upstream refused).
   */
  private async requestHeaders(
    call: DataPlaneCall,
    auth: UpstreamAuth,
    refused?: string,
  ): Promise<{ headers: Record<string, string>; secret?: string; reread?: boolean }> {
    const headers: Record<string, string> = { ...auth.headers, accept: "application/json" };
    if (call.basicAuth !== undefined) headers.authorization = call.basicAuth;
    const tenantHeader = auth.tenantHeader;
    if (tenantHeader !== undefined) {
      const tenant = call.context.tenant;
      if (tenant === undefined) throw noTenant();
      headers[tenantHeader] = tenant;
    }
    const { mode, secret } = auth;
    if ((mode === "basic" || mode === "bearer") && secret !== undefined) {
      const value = refused === undefined ? await secret.value() : await secret.refresh(refused);
      try {
        headers.authorization = authorizationOf(mode, value, secret.origin);
      } catch (error) {
        await secret.drop(value);
        throw error;
      }
      return { headers, secret: value };
    }
    return { headers };
  }

  private fetcherFor({ region, profile }: DataPlaneCall, auth: UpstreamAuth): Promise<Fetch> {
    if (auth.mode !== "sigv4") return Promise.resolve(fetch);
    this.regions?.check(region);
    return this.signedFetchers.get([region, profile], () =>
      import("aws-sigv4-fetch").then(({ createSignedFetcher }) =>
        createSignedFetcher({
          service: "aps",
          region,
          // A memoized provider: without one the signer builds a new default chain for every request.
          credentials: this.credentials.for(profile),
        }),
      ),
    );
  }
}

function credentialsRefused(auth: UpstreamAuth, who: Service, where: string): ToolError {
  const origin = auth.secret?.origin ?? "secret";
  const again = auth.secret?.rereadable ? ", read again after the first refusal" : "";
  return new ToolError(
    `${who} refused the credentials from the ${origin} (HTTP 401 at ${where})${again}: check the secret's value and ${auth.setting ?? "PROMETHEUS_AUTH"} (${auth.mode}).`,
    "denied",
  );
}

function without(params: QueryParams, names: readonly string[]): QueryParams {
  if (names.length === 0) return params;
  return Object.fromEntries(Object.entries(params).filter(([name]) => !names.includes(name)));
}

/** Host and path for messages: never the query (long) nor userinfo (secret). */
function describeTarget(baseApiUrl: string, path: string): string {
  try {
    const url = new URL(baseApiUrl);
    return `${url.protocol}//${url.host}${url.pathname}${path}`;
  } catch {
    return redactCredentials(`${baseApiUrl}${path}`);
  }
}
