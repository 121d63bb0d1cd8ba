/**
 * The MCP protocol revisions this server speaks: one list, used by `server/discover`, the
 * `-32022` error, the `MCP-Protocol-Version` header check and `initialize`.
 *
 * - Modern (2026-07-28): no handshake, no sessions; every request carries its version in `_meta`.
 * - Legacy (2025-11-25 and earlier): `initialize`, then optional `Mcp-Session-Id` sessions.
 *
 * `2024-10-07` is not here, though SDK 1.x accepts it: it was never a published revision (early
 * SDK builds sent it before 2024-11-05 was released), so an `initialize` asking for it is answered
 * with the latest legacy revision, as for any other unknown version.
 */
export const MODERN_VERSIONS: readonly string[] = ["2026-07-28"];
export const LEGACY_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/** Newest first, as `server/discover` and `-32022` list them. */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
/** What an `initialize` asking for a revision this server does not speak is answered with. */
export const LATEST_LEGACY_VERSION = "2025-11-25";

export function isModernVersion(version: string): boolean {
  return MODERN_VERSIONS.includes(version);
}

export function isLegacyVersion(version: string): boolean {
  return LEGACY_VERSIONS.includes(version);
}

/** `UnsupportedProtocolVersion` (2026-07-28): answered with the versions served and the one asked for. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
