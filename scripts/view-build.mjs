// Builds the range chart view (view/rangeView.ts, MCP Apps) into one HTML page: its script (uPlot
// included) and styles inline, under a Content-Security-Policy that lets that exact script and style
// sheet run (by their SHA-256) and nothing else: no other script, no request of any kind (connect,
// font, frame, form), images from data: URLs only (the server's picture). The server serves it as the
// `ui://` resource; the bundles hold it built (scripts/esbuild-plugins.cjs, viewAtBuild), and a run
// from sources builds it on first use (src/views/viewHtml.ts).
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

const sha256 = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The view's HTML page, built with `esbuild` (the build's own instance, or the package). */
export async function buildRangeView(esbuild) {
  const common = { absWorkingDir: root, bundle: true, minify: true, write: false, logLevel: "silent" };
  const [script, style, page] = await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: ["view/rangeView.ts"],
      format: "iife",
      platform: "browser",
      target: "es2020",
      legalComments: "eof",
    }),
    esbuild.build({
      ...common,
      stdin: {
        contents: `@import ${JSON.stringify(require.resolve("uplot/dist/uPlot.min.css"))};\n@import "./view/view.css";`,
        resolveDir: root,
        loader: "css",
      },
      target: "chrome100",
    }),
    readFile(new URL("../view/page.html", import.meta.url), "utf8"),
  ]);
  // Inside <script>, "</script" would end the element: escaped, it is the same text to the script.
  const code = script.outputFiles[0].text.replaceAll("</script", "<\\/script").trimEnd();
  const css = style.outputFiles[0].text.trimEnd();
  const policy = [
    "default-src 'none'",
    `script-src ${sha256(code)}`,
    `style-src ${sha256(css)}`,
    "img-src data:",
    "connect-src 'none'",
    "font-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  // Function replacements: the code holds `$` sequences a replacement string would interpret.
  return page
    .replace("%CSP%", () => policy)
    .replace("/* STYLE */", () => css)
    .replace("/* SCRIPT */", () => code);
}
