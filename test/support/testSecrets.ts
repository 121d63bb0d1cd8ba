/**
 * The credentials the tests give the server (test/integration/backendAuth.test.ts), in one place, so
 * that the whole suite can look for them where they must never be: every answer a test's handler gives
 * (test/support/handler.ts) and everything a test process writes to its stdout and stderr
 * (./secretScan.ts, a setup file of every Vitest project).
 */
export const TEST_TOKEN = "tok-3f9a1c-first";
export const TEST_ROTATED_TOKEN = "tok-77b2e0-second";
export const TEST_USER = "reader";
export const TEST_PASSWORD = "pa55-w0rd-9d1e";

/** Each credential, and the basic-auth header value made of the pair. */
export const TEST_SECRETS: readonly string[] = [
  TEST_TOKEN,
  TEST_ROTATED_TOKEN,
  TEST_PASSWORD,
  Buffer.from(`${TEST_USER}:${TEST_PASSWORD}`).toString("base64"),
];

/** The test secrets `text` holds. */
export function secretsIn(text: string): string[] {
  return TEST_SECRETS.filter((secret) => text.includes(secret));
}
