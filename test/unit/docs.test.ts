import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The way in stays short and its links stay true (issue 39): the README and the map have a length
// budget, and a link to a file or a heading that moved or was renamed fails here, not for a reader.

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const read = (page: string) => readFileSync(join(root, page), "utf8");
const lineCount = (page: string) => read(page).split("\n").length - (read(page).endsWith("\n") ? 1 : 0);

/** GitHub's heading anchor: lower case, punctuation dropped (not `-` or `_`), each space a `-`. */
function headingSlug(heading: string): string {
  return heading
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replaceAll(" ", "-");
}

/** Text outside fenced code blocks, where a `#` line is a comment and `](x)` is no link. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return !fenced && !line.startsWith("```");
  });
}

/** Every anchor a page offers: its headings' slugs (repeats numbered as GitHub does) and `<a id>`s. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(read(page))) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading) {
      const slug = headingSlug(heading[1] ?? "");
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const match of line.matchAll(/<a id="([^"]+)"/g)) anchors.add(match[1] ?? "");
  }
  return anchors;
}

/** The relative links of a page (not `http:`, `mailto:`…), as `[page, target]`. */
function relativeLinks(page: string): string[] {
  const links: string[] = [];
  for (const line of prose(read(page))) {
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? "";
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

/** What is wrong with one link, or undefined when it leads somewhere. */
function brokenLink(page: string, target: string): string | undefined {
  const [path = "", anchor] = target.split("#");
  const file = path === "" ? page : relative(root, join(root, dirname(page), decodeURI(path)));
  if (!existsSync(join(root, file))) return `${page}: ${target} (no file ${file})`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith(".md")) return `${page}: ${target} (an anchor in a file that is not markdown)`;
  return anchorsOf(file).has(anchor) ? undefined : `${page}: ${target} (no heading #${anchor} in ${file})`;
}

describe("the docs", () => {
  it("keep the README within 300 lines and the architecture map within 150", () => {
    expect(lineCount("README.md")).toBeLessThanOrEqual(300);
    expect(pages).toContain("docs/architecture.md");
    expect(lineCount("docs/architecture.md")).toBeLessThanOrEqual(150);
  });

  it("link only to files and headings that exist", () => {
    const links = pages.flatMap((page) => relativeLinks(page).map((target) => [page, target] as const));
    expect(links.length).toBeGreaterThan(20);
    expect(links.some(([, target]) => target.includes("#"))).toBe(true);
    expect(links.map(([page, target]) => brokenLink(page, target)).filter(Boolean)).toStrictEqual([]);
  });

  it("find a broken link to a file and to a heading, and accept a good one", () => {
    expect(brokenLink("README.md", "docs/no-such-page.md")).toContain("no file docs/no-such-page.md");
    expect(brokenLink("README.md", "docs/deploy.md#no-such-heading")).toContain(
      "no heading #no-such-heading",
    );
    expect(brokenLink("docs/deploy.md", "../README.md#tools")).toBeUndefined();
    expect(headingSlug("Against `npm start` (http://localhost:3000/mcp, no auth)")).toBe(
      "against-npm-start-httplocalhost3000mcp-no-auth",
    );
  });
});
