/**
 * Where an inbound message is checked, told as it happens to whoever listens: no one in service (one
 * property read a check); test/support/validations.ts counts them, with the SDK's own checks beside
 * them, to show that each layer of a message (the JSON-RPC message, its method's params, a tool's
 * arguments) is validated once on its way to the SDK's server.
 */
export type InboundCheck = "message" | "params" | "arguments";

export const inboundChecks: { listener?: (check: InboundCheck) => void } = {};

/** Tells the listener, if any, that `check` ran on an inbound message. */
export function checking(check: InboundCheck): void {
  inboundChecks.listener?.(check);
}
