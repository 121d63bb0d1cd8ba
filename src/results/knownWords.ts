// The words the token estimator prices exactly (label names, Kubernetes' vocabulary, JSON's literals):
// the list, the hash a walk keeps of a letter run, and the table that finds a word's extra tokens by it.

import { UNIT } from "./tokenPrices.js";

export const KNOWN_WORDS: readonly string[] =
  `status:0/0/0 success data:0/0/0 result:0/0/0 resultType:1/1/1 vector:0/0/0 matrix scalar string:0/0/0
  metric value:0/0/0 values name:0/0/0 series stats common:0/0/0 labels columns rows min:0/0/0 max:0/0/0
  avg last samples at note cut by:0/0/0 size total points bytes returned order:0/0/0 unusual:1/1/1 step
  seconds method limit metrics hint every truncated:0/1/1 downsampled:1/2/2 asked:1/0/1 instance job:0/0/0
  namespace pod container:0/0/0 node:0/0/0 service:0/0/0 endpoint image:0/0/0 id:0/0/0 cpu mode
  device:0/0/0 mountpoint:0/1/2 fstype:1/1/1 code:0/0/0 handler phase uid deployment le:0/0/0
  quantile:0/1/2 verb resource:0/0/0 group:0/0/0 version:0/0/0 scope component:0/0/0 path:0/0/0 host
  cluster zone region kind reason state:0/0/0 idle user:0/0/0 system:0/0/0 irq nice true false GET POST
  PUT DELETE PATCH LIST Pending Running Failed Unknown memory usage http:0/0/0 requests request:0/0/0
  duration bucket count:0/0/0 sum info:0/0/0 rate errors:0/0/0 network:0/0/0 receive:0/0/2 transmit:0/1/1
  disk read:0/0/0 write:0/0/0 filesystem avail load:0/0/0 kube:1/1/1 restarts:1/1/1 available
  replicas:0/1/2 process:0/0/0 resident go:0/0/0 threads up:0/0/0 exporter:0/1/1 api:0/0/0 server:0/0/0
  controller:0/0/0 manager proxy ingress:0/1/2 nginx:0/1/1 cert webhook:0/1/1 operator prometheus:1/1/1
  grafana:2/1/2 alertmanager:1/1/2 main:0/0/0 coredns:1/2/2 aws balancer:0/1/2 ebs:1/1/2 csi:0/1/1
  istio:1/1/2 gateway internal compute svc local:0/0/0 dkr:1/1/1 ecr:1/1/1 amazonaws:0/1/2 com:0/0/0
  kubepods:3/2/3 burstable:1/1/2 besteffort:1/2/3 slice cri containerd:1/1/1 healthz:1/1/2 readyz:1/1/2
  query:0/0/0 range label apiserver:2/2/2 kubelet:2/2/2 etcd:1/1/2 cadvisor:1/1/1 headless:0/1/1
  scrape:0/1/2 scraped:0/1/2 io time:0/0/0 drop:0/0/0 boot vmstat:1/1/2 pgmajfault:2/2/3 nf
  conntrack:2/1/2 entries timex:1/1/2 offset cfs:1/1/1 throttled:2/2/2 periods:0/1/2 working set:0/0/0 rss
  fs writes oom events:0/0/0 spec:0/0/0 condition allocatable:1/1/2 current:0/0/0
  persistentvolumeclaim:2/2/3 failed volume running pods:1/0/1 pleg:1/1/2 relist:1/1/1 inflight:1/1/1
  mvcc:1/1/2 db:0/0/0 in:0/0/0 workqueue:1/1/1 depth adds rest:0/0/0 client:0/0/0 dns cache:0/0/0 hits
  goroutines:2/1/2 gc memstats:1/1/2 heap alloc open:0/0/0 fds grpc handled handling milliseconds
  envoy:1/1/1 upstream:0/1/1 rq tsdb:1/1/2 head:0/0/0 remote storage:0/0/0 pending notifications probe
  karpenter:2/2/3 nodes argocd:2/2/3 app:0/0/0 sync certmanager:1/1/2 certificate expiration timestamp
  jvm:1/1/1 redis pg stat:0/0/0 kafka:0/1/1 scheduler lag sessions transactions evictions:2/1/2 queue
  pause written active ratio horizontalpodautoscaler:3/3/4 hikaricp:4/3/3 consumergroup:1/3/4`
    .split(/\s+/)
    .filter(Boolean);

export const WORD_SEED = 0x811c9dc5 | 0;
export const hashStep = (hash: number, code: number) => Math.imul(hash ^ code, 0x01000193) | 1;

// --- Known words ------------------------------------------------------------------------------------------
/**
 * The words results repeat in every series (the keys of Prometheus' answers and of this server's, label
 * names, and the vocabulary of Kubernetes, cAdvisor, node_exporter, kube-state-metrics and EKS names), with
 * their exact cost: a whole letter run that is one of these, right after a quote or a separator (`.-_/`)
 * and ended by ASCII that is not a letter, costs its first letter and the tokens each tokenizer takes for
 * the rest (see knownPrice). `word` takes none more in Claude's and after a quote in o200k's, one more in
 * o200k's after a separator (o200k glues a mark to a single letter, `-x`, but not to a word, `-|node`);
 * `word:c/q/s` takes c more in Claude's, q more in o200k's after a quote and s after a separator. Checked
 * against both tokenizers in test/property/tokens.test.ts.
 */
export function knownWordTable() {
  const KNOWN_SLOTS = 1024;
  /** Open addressing: a word's hash (never 0) at its hash's slot or the next free one. */
  const KNOWN = new Int32Array(KNOWN_SLOTS);
  /** Its extra tokens, 4 bits each: Claude's, o200k's after a quote, o200k's after a separator. */
  const KNOWN_EXTRA = new Uint16Array(KNOWN_SLOTS);
  for (const entry of KNOWN_WORDS) {
    const [word = "", extra = "0/0/1"] = entry.split(":");
    const [claude = 0, afterQuote = 0, afterSeparator = 0] = extra.split("/").map(Number);
    let hash = WORD_SEED;
    for (let i = 0; i < word.length; i++) hash = hashStep(hash, word.charCodeAt(i));
    let slot = hash & (KNOWN_SLOTS - 1);
    while (KNOWN[slot] !== 0) slot = (slot + 1) & (KNOWN_SLOTS - 1);
    KNOWN[slot] = hash;
    KNOWN_EXTRA[slot] = claude | (afterQuote << 4) | (afterSeparator << 8);
  }
  /** The slot of a known word's hash, or -1. */
  function knownSlot(hash: number): number {
    for (let slot = hash & (KNOWN_SLOTS - 1); KNOWN[slot] !== 0; slot = (slot + 1) & (KNOWN_SLOTS - 1)) {
      if (KNOWN[slot] === hash) return slot;
    }
    return -1;
  }
  return { knownSlot, knownExtraTable: KNOWN_EXTRA };
}

/**
 * JSON's literals as values (`[1,null,2]`, `"a":true`): unquoted, right after `,` `:` or `[`, where no
 * other word is known (a bare word there is not JSON). Each costs its first letter and, beyond it, no
 * token more in Claude's and at most one in o200k's (checked in test/property/tokens.test.ts): a table's
 * `null` cells and a compact curve's gaps, priced as unknown letters, cost three times what they do.
 */
export const JSON_LITERALS: readonly string[] = ["null", "true", "false"];
export const JSON_LITERAL_HASHES = new Set(
  JSON_LITERALS.map((word) => {
    let hash = WORD_SEED;
    for (let i = 0; i < word.length; i++) hash = hashStep(hash, word.charCodeAt(i));
    return hash;
  }),
);
/** Claude's extra (none) in bits 0-15, o200k's (one token) in bits 16-31, as knownExtra returns them. */
export const JSON_LITERAL_EXTRA = 0 * UNIT + 1 * UNIT * 65536;
