// A Prometheus stand-in that streams one very large range-query answer, for memory tests. It runs in
// its own process so that what it allocates is not counted against the process under test.
//
//   node test/support/bigAnswerServer.mjs <series> <points per series>
//
// Prints `http://127.0.0.1:<port>` once listening, then one JSON line per answer it ends or sees given
// up: {"query", "bytes" written, "whole": whether it was sent to its end, not its connection closed
// before}. Series i is {__name__="big", pod="pod-<i>"} and every one of its points has the value i: the
// later a series comes, the larger it ranks. A query `big_<n>` asks for n series instead.
import { once } from "node:events";
import { createServer } from "node:http";

const seriesCount = Number(process.argv[2] ?? 1500);
const points = Number(process.argv[3] ?? 1440);
const start = 1_700_000_000;

function series(i) {
  const values = [];
  for (let p = 0; p < points; p++) values.push(`[${start + p * 60},"${i}"]`);
  return `{"metric":{"__name__":"big","pod":"pod-${i}"},"values":[${values.join(",")}]}`;
}

const server = createServer(async (request, response) => {
  request.resume();
  const query = new URL(request.url ?? "/", "http://x").searchParams.get("query") ?? "";
  const asked = /^big_(\d+)$/.exec(query);
  const count = asked ? Number(asked[1]) : seriesCount;
  response.writeHead(200, { "content-type": "application/json" });
  let bytes = 0;
  let whole = false;
  const report = () => process.stdout.write(`${JSON.stringify({ query, bytes, whole })}\n`);
  const closed = new AbortController();
  response.once("close", () => {
    closed.abort();
    if (!whole) report();
  });
  const write = async (text) => {
    if (closed.signal.aborted) return false;
    bytes += text.length;
    if (!response.write(text))
      await once(response, "drain", { signal: closed.signal }).catch(() => undefined);
    return !closed.signal.aborted;
  };
  if (!(await write('{"status":"success","data":{"resultType":"matrix","result":['))) return;
  for (let i = 0; i < count; i++) {
    if (!(await write(`${i > 0 ? "," : ""}${series(i)}`))) return;
  }
  bytes += 3;
  whole = true;
  response.end("]}}", report);
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
