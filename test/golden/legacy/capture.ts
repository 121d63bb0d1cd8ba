// Writes what a revision's query collector renders for each LEGACY_CASES case, with the Python layout, into
// this folder: `npx tsx test/golden/legacy/capture.ts <checkout of the revision>` (run from this tree; the
// fixtures here were captured from commit 1344602, before the compact form).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { LEGACY_CASES } from "../../support/legacyAnswers.js";

const checkout = process.argv[2];
if (checkout === undefined) throw new Error("usage: capture.ts <checkout of the revision>");
const { rendered } = (await import(
  pathToFileURL(join(checkout, "test/support/cutResults.ts")).href
)) as typeof import("../../support/cutResults.js");
for (const { name, data, budget, asked } of LEGACY_CASES) {
  const { texts } = await rendered(data, budget, asked, 2);
  writeFileSync(join(import.meta.dirname, `${name}.txt`), texts.join("\n---\n"));
}
