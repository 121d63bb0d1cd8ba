import { mkdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { decode } from "fast-png";
import pixelmatch from "pixelmatch";
import { describe, expect, it } from "vitest";
import { type ChartOptions, chartModel, type MatrixSeries } from "../../src/charts/chartModel.js";
import { CHART_HEIGHT, CHART_WIDTH, renderPng } from "../../src/charts/render.js";

// Each chart case against its golden image (test/golden/charts/<case>.png), pixel by pixel with a
// tolerance for antialiasing. UPDATE_GOLDENS=1 rewrites the images (look at them before committing).

const GOLDENS = fileURLToPath(new URL("../golden/charts/", import.meta.url));
const START = 1_700_000_000;
/** Pixels allowed to differ (beyond pixelmatch's per-pixel threshold): 0.2 % of the image. */
const MAX_DIFFERENT = Math.round(CHART_WIDTH * CHART_HEIGHT * 0.002);

const series = (
  name: string,
  labels: Record<string, string>,
  value: (at: number) => string,
  points = 120,
) => ({
  metric: name === "" ? labels : { __name__: name, ...labels },
  values: Array.from({ length: points }, (_, at) => [START + at * 60, value(at)] as const),
});

/** A case's options besides its title (the case's name) and order. */
type Asked = Partial<ChartOptions>;

const CASES: Record<string, MatrixSeries[] | [MatrixSeries[], Asked]> = {
  lines: Array.from({ length: 5 }, (_, index) =>
    series("http_requests_per_second", { service: `svc-${index}` }, (at) =>
      String(10 + index * 3 + 2 * Math.sin(at / 8 + index)),
    ),
  ),
  "gaps-and-infinities": [
    series("node_load1", { instance: "a" }, (at) =>
      at >= 40 && at < 55 ? "NaN" : at === 80 ? "+Inf" : String(1 + Math.sin(at / 10)),
    ),
    series("node_load1", { instance: "b" }, (at) => (at === 30 ? "-Inf" : String(2 + Math.cos(at / 12)))),
  ],
  "one-series": [series("node_memory_MemAvailable_bytes", { instance: "a" }, (at) => String(4e9 - at * 1e7))],
  "two-hundred-series": Array.from({ length: 200 }, (_, index) =>
    series("container_cpu_usage_seconds_total", { pod: `api-${index}` }, (at) =>
      String(0.1 + index / 400 + 0.05 * Math.sin(at / 9 + index)),
    ),
  ),
  flat: [series("up", { job: "api" }, () => "1")],
  // Ten lines: the palette's seven colours, then three dashed; bytes per second in MiB/s.
  "ten-lines": [
    Array.from({ length: 10 }, (_, index) =>
      series("", { pod: `web-${index}` }, (at) =>
        String((20 + 6 * index + 4 * Math.sin(at / 15 + index)) * 2 ** 20),
      ),
    ),
    { query: "sum by (pod) (rate(container_network_receive_bytes_total[5m]))" },
  ],
  // An error ratio (in %) against two thresholds, one above every value drawn.
  thresholds: [
    [
      series("", {}, (at) =>
        String(at < 70 ? 0.004 + 0.001 * Math.sin(at / 5) : 0.03 + 0.004 * Math.sin(at / 4)),
      ),
    ],
    {
      query: 'sum(rate(http_requests_total{code=~"5.."}[5m])) / sum(rate(http_requests_total[5m]))',
      thresholds: [
        { value: 0.02, label: "ErrorBudgetBurn" },
        { value: 0.05, label: "page" },
      ],
    },
  ],
};

describe("charts against their golden images", () => {
  it.each(Object.keys(CASES))("%s", async (name) => {
    const [drawn, asked] = caseOf(name);
    const png = await renderPng(chartModel(drawn, { title: name, order: "unusual", ...asked }));
    // What a chat shows inline, whatever the case (the largest is two-hundred-series).
    expect(png.length).toBeLessThanOrEqual(150_000);
    const file = `${GOLDENS}${name}.png`;
    if (process.env.UPDATE_GOLDENS === "1") {
      await mkdir(GOLDENS, { recursive: true });
      await writeFile(file, png);
    }
    const ours = decode(png);
    const golden = decode(await readFile(file));
    expect([ours.width, ours.height]).toStrictEqual([golden.width, golden.height]);
    const different = pixelmatch(rgba(ours), rgba(golden), undefined, ours.width, ours.height, {
      threshold: 0.1,
    });
    expect(different, `${different} pixels differ from ${file}`).toBeLessThanOrEqual(MAX_DIFFERENT);
  });
});

function caseOf(name: string): [MatrixSeries[], Asked] {
  const chart = CASES[name] as MatrixSeries[] | [MatrixSeries[], Asked];
  return Array.isArray(chart[0]) ? (chart as [MatrixSeries[], Asked]) : [chart as MatrixSeries[], {}];
}

/** The image as RGBA bytes (resvg writes RGBA; a golden saved otherwise is widened). */
function rgba(image: ReturnType<typeof decode>): Uint8Array {
  if (image.channels === 4) return image.data as Uint8Array;
  const out = new Uint8Array(image.width * image.height * 4);
  for (let pixel = 0; pixel < image.width * image.height; pixel++) {
    for (let channel = 0; channel < 3; channel++)
      out[pixel * 4 + channel] = image.data[pixel * image.channels + channel] as number;
    out[pixel * 4 + 3] = 255;
  }
  return out;
}
