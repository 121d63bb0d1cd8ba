import { setTimeout as sleep } from "node:timers/promises";
import { abortedByDeadline, type RequestContext, step, timeLeft } from "../context.js";
import { ToolError } from "../errors.js";
import { boundValue } from "../monitoredText.js";
import { type Trace, traced } from "../tracing/trace.js";
import { backoffDelay, isRetryableStatus, PROMETHEUS_BACKOFF } from "../util/backoff.js";
import { Memo } from "../util/memoize.js";
import { cutText } from "../util/text.js";
import { type AnswerSink, MAX_ERROR_BODY_BYTES, readAnswer, readCapped } from "./answerReader.js";
import { authorizationOf, noTenant, type UpstreamAuth } from "./auth.js";
import type { Credentials } from "./credentials.js";
import { buildQueryString, type QueryParams } from "./queryString.js";
import type { Regions } from "./regions.js";
import { redactCredentials, splitCredentials, withoutCredentials } from "./urls.js";

/** One call of the Prometheus HTTP API. */
export interface DataPlaneCall {
  /** Region the SigV4 signature is scoped to. */
  region: string;
  profile: string | undefined;
  /** No attempt starts after its deadline; its signal aborts the running one. */
  context: RequestContext;
  /** Total attempts including the first (default 3). */
  maxAttempts?: number;
  /** Cap of a single attempt (default 30 s), further bounded by the deadline. */
  attemptTimeoutMs?: number;
  /**
   * Parameters the call works without: sent only to servers that have not rejected them (HTTP 400
   * naming the parameter). A server that does is asked again without them, and remembered.
   */
  optionalParams?: readonly string[];
  /** Who answers, as messages name it (default `Prometheus`; `Alertmanager` for its API). */
  service?: Service;
  /**
   * `Authorization: Basic …` for a plain Prometheus whose configured URL carried `user:password@`
   * (`auth: "none"` only: a SigV4 request's Authorization header is its signature).
   */
  basicAuth?: string | undefined;
  /** How this call's server is reached when not as the deployment's (a backend's own auth and headers). */
  auth?: UpstreamAuth | undefined;
}

export type { AnswerSink };

/** The server a data-plane call reads: a Prometheus HTTP API, or an Alertmanager API. */
export type Service = "Prometheus" | "Alertmanager";

export interface DataPlaneLimits {
  /** Reading stops past this many bytes of one answer: the call fails with advice to narrow the query. */
  maxAnswerBytes: number;
}

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_ATTEMPT_TIMEOUT_MS = 30_000;
/** Memory stays bounded whatever the answer's size; this bounds the time spent reading one. */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

type Fetch = typeof fetch;

/**
 * An outcome worth another attempt, with the error to report if no attempt is left and, for the
 * caller's progress, the reason in a few words (`HTTP 503`).
 */
class Retryable extends Error {
  constructor(
    message: string,
    readonly kind: "unreachable" | "upstream_failed" | "timeout",
    readonly reason: string,
  ) {
    super(message);
  }
}

/** Prometheus refused the request as such: retrying it unchanged cannot help. */
class Rejected extends ToolError {
  constructor(
    message: string,
    readonly status: number,
    readonly detail: string,
  ) {
    super(message, "rejected");
  }
}

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

interface Reading<T> extends DataPlaneLimits {
  sink: AnswerSink<T>;
}

/** What a traced call's subsegment records as it goes: the attempts made, the last HTTP status. */
class Tally {
  private attempts = 0;

  constructor(private readonly span: Trace) {}

  attempted(): void {
    this.span.annotate("attempts", ++this.attempts);
  }

  answered(status: number): void {
    this.span.annotate("status", status);
  }
}

async function attemptOnce<T>(
  fetcher: Fetch,
  url: string,
  where: string,
  call: DataPlaneCall,
  headers: Record<string, string>,
  startReading: () => Reading<T>,
  tally: Tally | undefined,
  refusal: Refusal,
): Promise<T> {
  const { timeoutMs, signal, end } = step(call.context, call.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS);
  const who = call.service ?? "Prometheus";
  const startedAt = performance.now();
  let answered = false;
  try {
    if (timeoutMs <= 0)
      throw new ToolError(`${who} did not answer before the request deadline (${where}).`, "timeout");
    try {
      // Never follow a redirect: it would carry the signature and session token (or the basic auth) to
      // another host, and its answer would be taken as Prometheus's. aws-sigv4-fetch passes `redirect`
      // on to fetch with the signed request.
      const response = await fetcher(url, { method: "GET", headers, signal, redirect: "manual" });
      answered = true;
      tally?.answered(response.status);
      call.context.debug?.("Prometheus answered", {
        url: withoutCredentials(url),
        status: response.status,
        ms: Math.round((performance.now() - startedAt) * 100) / 100,
      });
      if (isRedirect(response)) {
        await response.body?.cancel().catch(() => undefined);
        throw redirected(who, response, url, where);
      }
      if (response.status < 200 || response.status >= 300) {
        return interpretFailure(
          who,
          response.status,
          await readCapped(response, MAX_ERROR_BODY_BYTES),
          where,
          refusal,
        );
      }
      const { sink, maxAnswerBytes } = startReading();
      const progress = call.context.progress;
      progress?.step(`${who} is answering (HTTP ${response.status})`);
      const onRead =
        progress && ((bytes: number, elements: number) => progress.reading(bytes, elements, who));
      const read = await readAnswer(response, `${who}'s answer at ${where}`, sink, maxAnswerBytes, onRead);
      return read.ok ? read.value : interpretFailure(who, response.status, read.body, where, refusal);
    } catch (error) {
      if (error instanceof ToolError || error instanceof Retryable) throw error;
      throw failedAttempt(error, { url, where, call, signal, timeoutMs, startedAt, answered });
    }
  } finally {
    end();
    call.context.report?.upstreamAttempts(1, performance.now() - startedAt);
  }
}

/** Where an attempt stood when it failed. */
interface FailedAttempt {
  url: string;
  where: string;
  call: DataPlaneCall;
  signal: AbortSignal;
  timeoutMs: number;
  startedAt: number;
  /** Whether fetch had returned a response (the failure came while reading it). */
  answered: boolean;
}

/**
 * What an attempt that failed other than by an answer is, logged on DEBUG by its class or code (never
 * the HTTP client's message): a timeout or a network failure (worth another attempt), a cancellation,
 * or a request fetch could not build (sent again, it fails again).
 */
function failedAttempt(error: unknown, attempt: FailedAttempt): Error {
  const { url, where, call, signal, timeoutMs, startedAt } = attempt;
  const who = call.service ?? "Prometheus";
  const timedOut = abortedByDeadline(signal);
  const unsent = !attempt.answered && unbuildable(error);
  call.context.debug?.("Prometheus attempt failed", {
    url: withoutCredentials(url),
    error: timedOut
      ? "timeout"
      : signal.aborted
        ? "cancelled"
        : unsent
          ? `not built (${failureClass(error)})`
          : networkCause(error),
    ms: Math.round((performance.now() - startedAt) * 100) / 100,
  });
  if (timedOut) {
    return new Retryable(
      `${who} did not answer within ${timeoutMs} ms (${where}).`,
      "timeout",
      `no answer within ${timeoutMs} ms`,
    );
  }
  if (signal.aborted) return cancelled(who, where);
  if (unsent) return notBuilt(who, where, error);
  const cause = networkCause(error);
  return new Retryable(`Could not reach ${who} at ${where}: ${cause}.`, "unreachable", cause);
}

interface PrometheusEnvelope {
  status?: unknown;
  data?: unknown;
  errorType?: unknown;
  error?: unknown;
  message?: unknown;
}

/** What a 403 means, by how requests are signed. */
type Refusal = (who: Service, detail: string, where: string) => ToolError;

/** Throws the error a failed answer means (a Retryable one for 429 and 5xx). */
function interpretFailure(
  who: Service,
  status: number,
  body: string,
  where: string,
  refusal: Refusal,
): never {
  const envelope = parseEnvelope(body);
  // An error's words are the upstream's too (a duplicate series' labels, a rule's text): bounded alike.
  const detail = boundValue(errorDetail(envelope, body));
  if (status === 403) throw refusal(who, detail, where);
  if (isRetryableStatus(status))
    throw new Retryable(
      `${who} failed with HTTP ${status} at ${where}${detail ? `: ${detail}` : ""}`,
      "upstream_failed",
      `HTTP ${status}`,
    );
  if (typeof envelope?.errorType === "string") {
    throw new Rejected(`${who} rejected the query (HTTP ${status}) ${detail}`, status, detail);
  }
  // Alertmanager words a request it refuses (a malformed filter) as a bare string: the caller's to fix.
  if (who === "Alertmanager" && status === 400) {
    throw new Rejected(`Alertmanager rejected the request (HTTP 400): ${detail}`, status, detail);
  }
  if (status >= 200 && status < 300) {
    throw new ToolError(
      `${who} answered HTTP ${status} at ${where} without a success status: ${detail || "empty body"}`,
      "upstream_failed",
    );
  }
  throw new Rejected(
    `${who} answered HTTP ${status} at ${where}${detail ? `: ${detail}` : ""}. ${who === "Prometheus" ? "Check the Prometheus URL or workspace." : "Check ALERTMANAGER_URL or the workspace."}`,
    status,
    detail,
  );
}

function without(params: QueryParams, names: readonly string[]): QueryParams {
  if (names.length === 0) return params;
  return Object.fromEntries(Object.entries(params).filter(([name]) => !names.includes(name)));
}

function parseEnvelope(body: string): PrometheusEnvelope | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null ? (parsed as PrometheusEnvelope) : undefined;
  } catch {
    return undefined;
  }
}

function errorDetail(envelope: PrometheusEnvelope | undefined, body: string): string {
  const bare = jsonString(body);
  if (bare !== undefined) return bare;
  if (envelope && typeof envelope.error === "string") {
    return typeof envelope.errorType === "string"
      ? `${envelope.errorType}: ${envelope.error}`
      : envelope.error;
  }
  if (envelope && typeof envelope.message === "string") return envelope.message;
  if (envelope && typeof (envelope as { Message?: unknown }).Message === "string") {
    return (envelope as { Message: string }).Message;
  }
  const text = body.trim().replace(/\s+/g, " ");
  return cutText(text, 200);
}

/** A body that is one JSON string (how Alertmanager words a 400): the string. */
function jsonString(body: string): string | undefined {
  if (!body.trimStart().startsWith('"')) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "string" ? parsed.trim() : undefined;
  } catch {
    return undefined;
  }
}

function isRedirect(response: Response): boolean {
  return response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400);
}

/** The redirect as an error naming where it pointed (scheme and host only), never followed. */
function redirected(who: Service, response: Response, url: string, where: string): ToolError {
  const location = response.headers.get("location");
  let to = "an unnamed location";
  if (location !== null) {
    try {
      const target = new URL(location, url);
      to = `${target.protocol}//${target.host}`;
    } catch {
      to = "an invalid location";
    }
  }
  const status = response.status === 0 ? "a redirect" : `HTTP ${response.status}`;
  return new ToolError(
    `${who} answered with a redirect to ${to} (${status} at ${where}); not followed: requests and their credentials go to the configured Prometheus URL or workspace only. Configure the address it redirects to instead.`,
    "misconfigured",
  );
}

/** Node's and undici's error codes (ECONNREFUSED, UND_ERR_SOCKET…): identifiers, never a request's text. */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
/** An error's class (TypeError, SocketError…). */
const ERROR_NAME = /^[A-Za-z]{1,64}$/;
/** Codes of a request that cannot be made from what it was given (its URL, a header), on any attempt. */
const UNBUILDABLE_CODES = new Set([
  "ERR_INVALID_URL",
  "ERR_INVALID_CHAR",
  "ERR_INVALID_HTTP_TOKEN",
  "ERR_HTTP_INVALID_HEADER_VALUE",
]);
/** undici's words, compared and never passed on, for a port fetch never connects to (6000, 6667…). */
const BAD_PORT = "bad port";

/**
 * Why a request could not be made, in words of our own: a known code described, another code as it
 * is, else the error's class. Never the HTTP client's message: it quotes what it refused (a header's
 * whole value: the bearer token in it), or a URL's user:password@.
 */
function networkCause(error: unknown): string {
  const code = errorCode(error);
  if (code === "ECONNREFUSED") return "connection refused (ECONNREFUSED)";
  if (code === "ENOTFOUND") return "host not found (ENOTFOUND)";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return `connection reset (${code})`;
  if (code !== undefined) return code;
  if (causeOf(error)?.message === BAD_PORT) return "a port fetch does not connect to (bad port)";
  return `a network error (${errorClass(error)})`;
}

/** The error's code, else its class: what a failure is said by when its message cannot be. */
function failureClass(error: unknown): string {
  return errorCode(error) ?? errorClass(error);
}

/** The class of the error's cause, else of the error: `TypeError`, `SocketError`… */
function errorClass(error: unknown): string {
  const named = causeOf(error) ?? error;
  return named instanceof Error && ERROR_NAME.test(named.name) ? named.name : "Error";
}

function causeOf(error: unknown): { code?: unknown; message?: unknown; name?: unknown } | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  return typeof cause === "object" && cause !== null ? cause : undefined;
}

/** The error's code, or its cause's (fetch's TypeError carries the network's in its cause). */
function errorCode(error: unknown): string | undefined {
  for (const candidate of [causeOf(error), error]) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === "string" && ERROR_CODE.test(code)) return code;
  }
  return undefined;
}

/**
 * True when fetch refused to build the request: a header or URL it cannot carry (its TypeError without
 * a network cause, or an invalid-URL or -header code). Sent again, it fails again: no retry.
 */
function unbuildable(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined) return UNBUILDABLE_CODES.has(code);
  return error instanceof TypeError && error.cause === undefined;
}

/** A request fetch refused to build, said by its class or code only (its message quotes the value). */
function notBuilt(who: Service, where: string, error: unknown): ToolError {
  return new ToolError(
    `The request to ${who} (${where}) could not be made: a header or its URL holds what HTTP cannot carry (${failureClass(error)}); nothing was sent. Check the server's URL and the headers configured for it.`,
    "misconfigured",
  );
}

function cancelled(who: Service, where: string): ToolError {
  return new ToolError(`The request to ${who} (${where}) was cancelled before it answered.`, "cancelled");
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
