import { existsSync } from "node:fs";

/** Debian's Chromium (`apt install chromium`, which .ci/run does): no tool downloads a browser of its own. */
export const CHROMIUM_PATH = "/usr/bin/chromium";
/** Headless, no sandbox (containers run as root), no GPU, and no requests of the browser's own. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
];

/** Whether Chromium is installed; if not, says loudly which tests are skipped (CI fails on any skip). */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const bar = "!".repeat(100);
  console.warn(
    `\n${bar}\n!! SKIPPING the browser tests: ${CHROMIUM_PATH} is missing (apt-get install chromium; .ci/run installs it)\n${bar}\n`,
  );
  return false;
}
