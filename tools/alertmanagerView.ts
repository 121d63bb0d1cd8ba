import { ToolError } from "../src/errors.js";
import type { AnswerSink } from "../src/prometheus/dataPlane.js";
import type { DataPlaneCall } from "../src/prometheus/dataPlaneCall.js";
import { NoAlertmanagerError } from "../src/prometheus/workspaces.js";
import { loadRegexEngine } from "../src/promql/matchers.js";
import {
  type AlertmanagerView,
  type AmAlert,
  type AmSilence,
  amAlertOf,
  amSilenceOf,
} from "../src/results/alertmanagerStatus.js";
import { parseJsonBytes } from "../src/util/json.js";
import { cutText } from "../src/util/text.js";
import { usableProfile, type WorkspaceArgs } from "./common.js";
import type { ToolCall } from "./types.js";

/**
 * What a tool that joins alerts to Alertmanager waits for it: one attempt and one retry, each shorter than
 * a Prometheus call's, so that an Alertmanager that does not answer costs the answer its status, not the
 * answer itself.
 */
const ATTEMPTS = 2;
const ATTEMPT_TIMEOUT_MS = 5_000;
/** A failure's words in the reason, at most (the whole message is the tool error's, e.g. ListSilences's). */
const MAX_REASON_CHARS = 400;

/** Every alert Alertmanager holds, whatever its state (its API lists only active ones by default). */
const EVERY_ALERT = { active: "true", silenced: "true", inhibited: "true", unprocessed: "true" };

/**
 * Alertmanager's alerts and silences for the workspace the arguments name (AMP's under its URL, else
 * ALERTMANAGER_URL or the backend's), both asked at once; or, when there is no Alertmanager or it cannot
 * be read (refused, unreachable, an answer of another shape), the reason in words. Never throws a
 * ToolError for Alertmanager: the caller answers without its status.
 */
export async function readAlertmanager(args: WorkspaceArgs, call: ToolCall): Promise<AlertmanagerView> {
  const profile = usableProfile(args.profile, call);
  const { upstream, context } = call;
  try {
    const target = await upstream.workspaces.alertmanager(
      { workspaceId: args.workspace_id, region: args.region, profile },
      context,
    );
    const dataPlaneCall: DataPlaneCall = {
      region: target.region,
      profile,
      context,
      basicAuth: target.basicAuth,
      auth: target.auth,
      service: "Alertmanager",
      maxAttempts: ATTEMPTS,
      attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    };
    const get = <T>(path: string, params: Record<string, string>, read: (raw: unknown) => T | undefined) =>
      upstream.dataPlane.get(target.apiUrl, path, params, dataPlaneCall, () => listSink(read));
    // Silences are matched with RE2 (silenceMatches): its engine loads while Alertmanager answers.
    const [alerts, silences] = await Promise.all([
      get<AmAlert>("/alerts", EVERY_ALERT, amAlertOf),
      get<AmSilence>("/silences", {}, amSilenceOf),
      loadRegexEngine(),
    ]);
    if (alerts === undefined) return unavailable("Alertmanager answered with an unexpected alert list");
    if (silences === undefined) return unavailable("Alertmanager answered with an unexpected silence list");
    return { available: true, alerts, silences };
  } catch (error) {
    if (error instanceof NoAlertmanagerError) {
      return unavailable(
        error.backend === undefined
          ? "no Alertmanager is configured (ALERTMANAGER_URL)"
          : `backend ${error.backend} has no alertmanager_url`,
      );
    }
    // A tool error's message is written for the caller: no secret, no stack.
    if (error instanceof ToolError && error.kind !== "cancelled")
      return unavailable(cutText(error.message, MAX_REASON_CHARS));
    throw error;
  }
}

function unavailable(reason: string): AlertmanagerView {
  return { available: false, reason };
}

/** Alertmanager's bare JSON array, each element read by `read`; undefined if one is not of its shape. */
function listSink<T>(read: (raw: unknown) => T | undefined): AnswerSink<T[] | undefined> {
  const list: T[] = [];
  let wellFormed = true;
  return {
    format: { bare: true },
    element(raw) {
      const item = read(parseJsonBytes(raw));
      if (item === undefined) wellFormed = false;
      else list.push(item);
    },
    finish: () => (wellFormed ? list : undefined),
  };
}
