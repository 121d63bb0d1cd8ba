/**
 * A realistic, deterministic on-call dataset for the test Prometheus
 * (`startPrometheus({ openMetrics: onCallOpenMetricsChunks })`): one day of a Kubernetes cluster's metrics,
 * one sample every 60 s (1,441 samples per series, `start` and `end` included), with planted incidents, to
 * check what an assistant investigating an incident gets from the query tools.
 *
 * - 20 nodes (node-exporter): `node_memory_MemTotal_bytes`, `node_memory_MemAvailable_bytes` (30–70 %
 *   available, daily pattern, noise), `node_cpu_seconds_total{mode="idle"|"user"|"system"}` (per node, no
 *   `cpu` label: its rate is in cores). Labels `job="node-exporter"`, `instance="10.0.a.b:9100"`,
 *   `node="ip-10-0-a-b.ec2.internal"`.
 * - 200 pods in 11 namespaces, each on one node: `container_cpu_usage_seconds_total{namespace,pod,container,node}`
 *   (counter, noisy floats, daily load pattern), `container_memory_working_set_bytes{namespace,pod,container}`
 *   (gauge), `kube_pod_container_status_restarts_total{namespace,pod,container}` (counter).
 * - `up{job,instance}` for 128 targets: the 20 node-exporters and 108 pods.
 * - 8 HTTP services of 3 pods each: `http_requests_total{service,pod,method,code}` (counter) and the histogram
 *   `http_request_duration_seconds{service,pod}` (`_bucket` with 12 `le`, `_sum`, `_count`; `_count` equals the
 *   pod's total requests).
 *
 * - Planted change points (`ON_CALL_PLANTED`, generated last): `planted_change_signal{shape}` (a step, a
 *   six-hour memory leak, a 20-minute spike in the night that ended, a flat series, a daily cycle only) and
 *   `worker_queue_depth{worker}` (eight workers on one daily cycle, one a little larger, one stepping up an
 *   hour before `end`).
 *
 * The story (all of it in the last 6 hours, see `ON_CALL_INCIDENTS`): a `recommendations/model-server` pod
 * runs away (CPU climbs to ~3.8 cores, its working set to ~9 GiB) on a 16 GiB node whose available memory falls
 * to ~2 %; a `payments/fraud-detector` pod crash-loops (restarts climb, its `up` flaps and is 0 at `end`) and
 * the `payments` service answers ~20 % 500s for the last hour; the `checkout` service's p99 latency goes from
 * ~200 ms to ~4 s.
 *
 * Everything comes from a seeded PRNG (no Math.random): every run yields the same bytes. The values are
 * computed once (lazily, ~15 MB of arrays) and streamed as text one series per chunk (~200 MB in all).
 */

/** Time range: sample i is at `start + i * intervalSeconds`, i = 0 … sampleCount - 1 (both ends included). */
export const ON_CALL_DATASET = {
  start: 1_700_000_000,
  end: 1_700_086_400,
  intervalSeconds: 60,
  sampleCount: 1441,
} as const;

const { start: START, end: END, intervalSeconds: STEP, sampleCount: N } = ON_CALL_DATASET;
const MINUTE = 60;
const HOUR = 3600;
const GiB = 2 ** 30;
const MiB = 2 ** 20;

export const ON_CALL_METRICS = {
  memTotal: "node_memory_MemTotal_bytes",
  memAvailable: "node_memory_MemAvailable_bytes",
  nodeCpu: "node_cpu_seconds_total",
  podCpu: "container_cpu_usage_seconds_total",
  podMemory: "container_memory_working_set_bytes",
  restarts: "kube_pod_container_status_restarts_total",
  up: "up",
  httpRequests: "http_requests_total",
  latencyBucket: "http_request_duration_seconds_bucket",
  latencySum: "http_request_duration_seconds_sum",
  latencyCount: "http_request_duration_seconds_count",
  plantedSignal: "planted_change_signal",
  queueDepth: "worker_queue_depth",
  fleetMemory: "container_memory_usage_bytes",
} as const;

/** Every metric name in the dataset, sorted by code point (as `/api/v1/label/__name__/values` returns them). */
export const ON_CALL_METRIC_NAMES: readonly string[] = Object.values(ON_CALL_METRICS).sort((a, b) =>
  a < b ? -1 : a > b ? 1 : 0,
);

/** The histogram's upper bounds, as the `le` label spells them. */
export const LATENCY_BUCKETS = [
  "0.005",
  "0.01",
  "0.025",
  "0.05",
  "0.1",
  "0.25",
  "0.5",
  "1",
  "2.5",
  "5",
  "10",
  "+Inf",
] as const;

// ---------------------------------------------------------------------------------------------------------
// Deterministic randomness

const SEED = 20_231_114;

function hashString(text: string): number {
  let h = 0x811c9dc5; // FNV-1a
  for (let k = 0; k < text.length; k++) {
    h ^= text.charCodeAt(k);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box–Muller). */
  gauss(): number;
  int(minInclusive: number, maxInclusive: number): number;
  pick<T>(items: readonly T[]): T;
}

/** A mulberry32 stream seeded from `key`: the same key always gives the same numbers. */
function random(key: string): Random {
  let a = hashString(`${SEED}:${key}`);
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    gauss: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
  };
}

// ---------------------------------------------------------------------------------------------------------
// Time helpers

/** Epoch seconds of sample i. */
export function onCallTimeOf(i: number): number {
  return START + i * STEP;
}

/** The sample index in effect at epoch second t (the last sample at or before t). */
export function onCallSampleIndexAt(t: number): number {
  return Math.max(0, Math.min(N - 1, Math.floor((t - START) / STEP)));
}

/** Traffic over the day: 0.35 at 05:00 UTC, 1 at 17:00 UTC. */
function dailyLoad(t: number): number {
  const hour = (t % 86_400) / HOUR;
  return 0.675 + 0.325 * Math.cos((2 * Math.PI * (hour - 17)) / 24);
}

/** 0 before `from`, 1 after `to`, a smooth S-curve between. */
function ramp(t: number, from: number, to: number): number {
  if (t <= from) return 0;
  if (t >= to) return 1;
  const x = (t - from) / (to - from);
  return x * x * (3 - 2 * x);
}

export interface TimeWindow {
  /** Epoch seconds, inclusive. */
  start: number;
  end: number;
}

// ---------------------------------------------------------------------------------------------------------
// Topology: nodes, namespaces, deployments, pods, services, scrape targets

export interface OnCallNode {
  /** `node` label, e.g. `ip-10-0-12-34.ec2.internal`. */
  node: string;
  /** node-exporter's `instance` label, e.g. `10.0.12.34:9100`. */
  instance: string;
  /** The instance size: 16, 32 or 64 GiB (4, 8 or 16 cores). */
  memoryGiB: 16 | 32 | 64;
  cores: number;
  /** `node_memory_MemTotal_bytes`: a little under the nominal size, as the kernel reports it. */
  memTotalBytes: number;
}

export interface OnCallPod {
  namespace: string;
  deployment: string;
  /** `<deployment>-<9-char replica set hash>-<5-char suffix>`. */
  pod: string;
  /** The single container's name (the deployment's). */
  container: string;
  /** The node it runs on (`node` label). */
  node: string;
  /** Its scrape target, when Prometheus scrapes it (`up{job,instance}`). */
  target?: OnCallTarget;
}

export interface OnCallTarget {
  job: string;
  instance: string;
}

export interface OnCallService {
  /** `service` label (also the deployment and namespace name). */
  service: string;
  namespace: string;
  /** Its 3 pods' names. */
  pods: readonly string[];
}

/** The 11 namespaces, and their deployments: replicas, CPU at peak (cores), working set (MiB), scraped or not. */
const DEPLOYMENTS: Record<string, readonly Deployment[]> = {
  checkout: [
    { name: "checkout", replicas: 3, cpu: 0.18, memMiB: 420, scraped: true },
    { name: "checkout-worker", replicas: 3, cpu: 0.08, memMiB: 260, scraped: true },
  ],
  payments: [
    { name: "payments", replicas: 3, cpu: 0.14, memMiB: 380, scraped: true },
    { name: "fraud-detector", replicas: 3, cpu: 0.22, memMiB: 900, scraped: true },
    { name: "payments-reconciler", replicas: 2, cpu: 0.03, memMiB: 180, scraped: false, batch: true },
    { name: "ledger", replicas: 4, cpu: 0.09, memMiB: 520, scraped: true },
  ],
  cart: [
    { name: "cart", replicas: 3, cpu: 0.12, memMiB: 300, scraped: true },
    { name: "cart-cleanup", replicas: 4, cpu: 0.02, memMiB: 90, scraped: false, batch: true },
  ],
  catalog: [
    { name: "catalog", replicas: 3, cpu: 0.26, memMiB: 700, scraped: true },
    { name: "catalog-indexer", replicas: 4, cpu: 0.05, memMiB: 1100, scraped: false, batch: true },
    { name: "pricing", replicas: 6, cpu: 0.11, memMiB: 350, scraped: true },
    { name: "inventory", replicas: 8, cpu: 0.07, memMiB: 310, scraped: true },
  ],
  search: [
    { name: "search", replicas: 3, cpu: 0.34, memMiB: 1600, scraped: true },
    { name: "search-indexer", replicas: 4, cpu: 0.06, memMiB: 1300, scraped: false, batch: true },
    { name: "query-suggest", replicas: 6, cpu: 0.1, memMiB: 450, scraped: true },
  ],
  frontend: [
    { name: "frontend", replicas: 3, cpu: 0.3, memMiB: 520, scraped: true },
    { name: "web-bff", replicas: 8, cpu: 0.16, memMiB: 380, scraped: true },
    { name: "static-assets", replicas: 8, cpu: 0.03, memMiB: 64, scraped: false },
    { name: "image-resizer", replicas: 10, cpu: 0.12, memMiB: 600, scraped: false },
  ],
  auth: [
    { name: "auth", replicas: 3, cpu: 0.15, memMiB: 330, scraped: true },
    { name: "session-store", replicas: 4, cpu: 0.05, memMiB: 1200, scraped: false },
    { name: "token-issuer", replicas: 6, cpu: 0.06, memMiB: 240, scraped: true },
  ],
  shipping: [
    { name: "shipping", replicas: 3, cpu: 0.07, memMiB: 290, scraped: true },
    { name: "label-printer", replicas: 4, cpu: 0.03, memMiB: 150, scraped: false },
    { name: "rate-calculator", replicas: 6, cpu: 0.08, memMiB: 270, scraped: true },
    { name: "tracking", replicas: 8, cpu: 0.05, memMiB: 230, scraped: false },
  ],
  notifications: [
    { name: "email-sender", replicas: 8, cpu: 0.04, memMiB: 200, scraped: false },
    { name: "sms-sender", replicas: 6, cpu: 0.03, memMiB: 170, scraped: false },
    { name: "push-gateway", replicas: 8, cpu: 0.06, memMiB: 210, scraped: true },
    { name: "notification-router", replicas: 6, cpu: 0.05, memMiB: 190, scraped: true },
  ],
  recommendations: [
    { name: "recommendations-api", replicas: 8, cpu: 0.2, memMiB: 640, scraped: true },
    { name: "feature-store", replicas: 6, cpu: 0.13, memMiB: 1800, scraped: false },
    { name: "model-server", replicas: 10, cpu: 0.38, memMiB: 1900, scraped: true },
    { name: "ranker", replicas: 8, cpu: 0.17, memMiB: 700, scraped: false },
  ],
  monitoring: [
    { name: "prometheus-operator", replicas: 1, cpu: 0.02, memMiB: 110, scraped: true },
    { name: "kube-state-metrics", replicas: 1, cpu: 0.05, memMiB: 160, scraped: true },
    { name: "grafana", replicas: 2, cpu: 0.04, memMiB: 280, scraped: false },
    { name: "blackbox-exporter", replicas: 2, cpu: 0.01, memMiB: 40, scraped: false },
    { name: "otel-collector", replicas: 12, cpu: 0.14, memMiB: 420, scraped: false },
  ],
};

interface Deployment {
  name: string;
  replicas: number;
  /** CPU at the day's peak, in cores. */
  cpu: number;
  memMiB: number;
  scraped: boolean;
  /** Mostly idle, busy for a few minutes every hour. */
  batch?: boolean;
}

export const ON_CALL_NAMESPACES: readonly string[] = Object.keys(DEPLOYMENTS);

/** The 8 services with HTTP metrics: each the deployment of the same name in the namespace of the same name. */
const SERVICE_NAMES = [
  "frontend",
  "checkout",
  "payments",
  "cart",
  "catalog",
  "search",
  "auth",
  "shipping",
] as const;

/** Requests per second per pod at the day's peak, the share of GETs, and the latency's median (seconds). */
const TRAFFIC: Record<(typeof SERVICE_NAMES)[number], { rps: number; getShare: number; median: number }> = {
  frontend: { rps: 60, getShare: 0.92, median: 0.022 },
  checkout: { rps: 8, getShare: 0.4, median: 0.034 },
  payments: { rps: 6, getShare: 0.3, median: 0.035 },
  cart: { rps: 15, getShare: 0.6, median: 0.012 },
  catalog: { rps: 40, getShare: 0.95, median: 0.018 },
  search: { rps: 25, getShare: 0.97, median: 0.03 },
  auth: { rps: 30, getShare: 0.5, median: 0.008 },
  shipping: { rps: 5, getShare: 0.7, median: 0.025 },
};
const LATENCY_SIGMA = 0.65;

const K8S_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const NODE_SIZES = [32, 16, 64, 32, 32, 16, 32, 64, 16, 32, 32, 16, 32, 64, 32, 16, 32, 32, 64, 16] as const;
const LOW_MEMORY_NODE_INDEX = 8; // a 16 GiB, 4-core node
const RUNAWAY_REPLICA = 6; // model-server's 7th pod
const CRASH_REPLICA = 1; // fraud-detector's 2nd pod

function buildTopology() {
  const rnd = random("topology");
  const usedIps = new Set<string>();
  const ip = (): [number, number] => {
    for (;;) {
      const a = rnd.int(0, 95); // 10.0.0.0/17: three AZ subnets of a VPC
      const b = rnd.int(4, 250);
      if (!usedIps.has(`${a}.${b}`)) {
        usedIps.add(`${a}.${b}`);
        return [a, b];
      }
    }
  };
  const nodes: OnCallNode[] = NODE_SIZES.map((memoryGiB) => {
    const [a, b] = ip();
    // The kernel reports a little less than the instance's memory (≈ 95 %), in whole KiB.
    const memTotalBytes = Math.round((memoryGiB * GiB * (0.948 + rnd.next() * 0.004)) / 1024) * 1024;
    return {
      node: `ip-10-0-${a}-${b}.ec2.internal`,
      instance: `10.0.${a}.${b}:9100`,
      memoryGiB,
      cores: memoryGiB / 4,
      memTotalBytes,
    };
  });
  const lowMemoryNode = nodes[LOW_MEMORY_NODE_INDEX] as OnCallNode;
  // Pods land on nodes in proportion to their cores (the low-memory node takes the runaway pod and few others).
  const weighted = nodes.flatMap((node) =>
    Array<OnCallNode>(node === lowMemoryNode ? 1 : node.cores).fill(node),
  );
  const usedNames = new Set<string>();
  const randomName = (length: number) => {
    let name = "";
    for (let k = 0; k < length; k++) name += rnd.pick([...K8S_ALPHABET]);
    return name;
  };
  const pods: (OnCallPod & { spec: Deployment })[] = [];
  for (const [namespace, deployments] of Object.entries(DEPLOYMENTS)) {
    for (const spec of deployments) {
      const hash = randomName(9);
      for (let r = 0; r < spec.replicas; r++) {
        let pod: string;
        do pod = `${spec.name}-${hash}-${randomName(5)}`;
        while (usedNames.has(pod));
        usedNames.add(pod);
        const runaway = spec.name === "model-server" && r === RUNAWAY_REPLICA;
        let node = (runaway ? lowMemoryNode : rnd.pick(weighted)).node;
        if (!runaway && node === lowMemoryNode.node && spec.cpu > 0.1) node = (nodes[0] as OnCallNode).node;
        const entry: OnCallPod & { spec: Deployment } = {
          namespace,
          deployment: spec.name,
          pod,
          container: spec.name,
          node,
          spec,
        };
        if (spec.scraped) {
          const [a, b] = ip();
          entry.target = {
            job: spec.name,
            instance: `10.0.${a}.${b}:${namespace === "monitoring" ? 8080 : 9102}`,
          };
        }
        pods.push(entry);
      }
    }
  }
  return { nodes, pods, lowMemoryNode };
}

const TOPOLOGY = buildTopology();

/** The 20 nodes, in generation order. */
export const ON_CALL_NODES: readonly OnCallNode[] = TOPOLOGY.nodes;

/** The 200 pods, by namespace and deployment. */
export const ON_CALL_PODS: readonly OnCallPod[] = TOPOLOGY.pods.map(({ spec: _spec, ...pod }) => pod);

/** The 8 HTTP services, each with its 3 pods. */
export const ON_CALL_SERVICES: readonly OnCallService[] = SERVICE_NAMES.map((service) => ({
  service,
  namespace: service,
  pods: ON_CALL_PODS.filter((p) => p.namespace === service && p.deployment === service).map((p) => p.pod),
}));

/** The 128 `up` targets: the 20 node-exporters, then the 108 scraped pods. */
export const ON_CALL_UP_TARGETS: readonly OnCallTarget[] = [
  ...ON_CALL_NODES.map((n) => ({ job: "node-exporter", instance: n.instance })),
  ...ON_CALL_PODS.flatMap((p) => (p.target ? [p.target] : [])),
];

function findPod(deployment: string, replica: number): OnCallPod {
  const pod = ON_CALL_PODS.filter((p) => p.deployment === deployment)[replica];
  if (!pod) throw new Error(`no replica ${replica} of ${deployment}`);
  return pod;
}

// ---------------------------------------------------------------------------------------------------------
// Planted facts

const runaway = findPod("model-server", RUNAWAY_REPLICA);
const crashing = findPod("fraud-detector", CRASH_REPLICA);

/** Incident windows (epoch seconds, inclusive), all ending at `end`. */
export const ON_CALL_INCIDENTS = {
  /** The runaway pod's CPU climbs from ~0.3 to ~3.8 cores (plateau from `plateau` on); its memory grows to ~9 GiB. */
  runaway: { start: END - 6 * HOUR, plateau: END - 4 * HOUR, end: END },
  /** The low-memory node's available memory falls to ~2 % of its total (reached at `floor`) and stays there. */
  lowMemory: { start: END - 5 * HOUR, floor: END - 3 * HOUR, end: END },
  /** The crash-looping pod restarts 21 times; its `up` flaps, 0 at `end`. */
  crashLoop: { start: END - 90 * MINUTE, end: END },
  /** The error service answers ~20 % 500s. */
  errors: { start: END - 60 * MINUTE, end: END },
  /** The slow service's p99 goes from ~200 ms to ~4 s. */
  latency: { start: END - 75 * MINUTE, end: END },
} as const;

/** The node whose available memory falls to ~2 % of its total (the runaway pod runs there). */
export const lowMemoryNode: OnCallNode = TOPOLOGY.lowMemoryNode;

/** The pod whose CPU climbs to several cores (every other pod stays well under 1 core). */
export const runawayPod = { namespace: runaway.namespace, pod: runaway.pod, node: runaway.node } as const;

/** The pod that crash-loops during `ON_CALL_INCIDENTS.crashLoop`, and its scrape target. */
export const crashLoopingPod = {
  namespace: crashing.namespace,
  pod: crashing.pod,
  job: crashing.target?.job ?? "",
  instance: crashing.target?.instance ?? "",
} as const;

/** The service whose 500s reach ~20 % of its requests during `ON_CALL_INCIDENTS.errors`. */
export const errorService = "payments";
/** The service whose p99 latency reaches ~4 s during `ON_CALL_INCIDENTS.latency`. */
export const slowService = "checkout";

const CRASH_RESTART_MINUTES = (() => {
  // Minutes into the crash loop at which the container is restarted: CrashLoopBackOff's back-off doubles
  // (10 s, 20 s, 40 s, …) up to 5 min.
  const minutes = [1, 2, 3, 5, 8, 13];
  for (let m = 18; m < 90; m += 5) minutes.push(m);
  return minutes;
})();

/** How many times the crash-looping pod restarts during the incident. */
export const CRASH_LOOP_RESTARTS = CRASH_RESTART_MINUTES.length;

// ---------------------------------------------------------------------------------------------------------
// Values: computed once, on first use

interface SeriesData {
  /** The metric name of the samples (with `_total`, `_bucket`, … as written). */
  name: string;
  labels: Record<string, string>;
  values: Float64Array;
}

interface Model {
  nodeMemAvailable: Map<string, Float64Array>;
  nodeCpu: Map<string, { idle: Float64Array; user: Float64Array; system: Float64Array }>;
  /** Per pod (namespace/pod): the CPU used in each minute, in cores (index 0: the minute before `start`). */
  podCpuCores: Map<string, Float64Array>;
  podCpuCounter: Map<string, Float64Array>;
  podMemory: Map<string, Float64Array>;
  restarts: Map<string, Float64Array>;
  up: Map<string, Float64Array>;
  /** Per pod and `${method} ${code}`: the counter. */
  requests: Map<string, Map<string, Float64Array>>;
  /** Per pod: cumulative buckets (by le), sum and count. */
  latency: Map<string, { buckets: Float64Array[]; sum: Float64Array; count: Float64Array }>;
}

const podKey = (namespace: string, pod: string) => `${namespace}/${pod}`;
const targetKey = (target: OnCallTarget) => `${target.job}|${target.instance}`;

let cachedModel: Model | undefined;

function model(): Model {
  cachedModel ??= buildModel();
  return cachedModel;
}

function buildModel(): Model {
  const podCpuCores = new Map<string, Float64Array>();
  const podCpuCounter = new Map<string, Float64Array>();
  const podMemory = new Map<string, Float64Array>();
  const restarts = new Map<string, Float64Array>();
  const crashStart = ON_CALL_INCIDENTS.crashLoop.start;
  const crashStartIndex = onCallSampleIndexAt(crashStart);

  for (const { spec, ...pod } of TOPOLOGY.pods) {
    const key = podKey(pod.namespace, pod.pod);
    const rnd = random(`pod:${key}`);
    const isRunaway = pod.pod === runawayPod.pod;
    const isCrashing = pod.pod === crashLoopingPod.pod;
    const factor = 0.75 + rnd.next() * 0.5;
    const batchMinute = rnd.int(0, 59);
    const cores = new Float64Array(N);
    const counter = new Float64Array(N);
    let total = rnd.next() * 40_000; // pods started hours or days ago
    let wobble = 0;
    for (let i = 0; i < N; i++) {
      const t = onCallTimeOf(i);
      wobble = 0.8 * wobble + 0.2 * rnd.gauss();
      let c = spec.cpu * factor * (0.25 + 0.75 * dailyLoad(t)) * (1 + 0.12 * wobble + 0.05 * rnd.gauss());
      if (spec.batch) {
        const minute = Math.floor((t - START) / MINUTE + batchMinute) % 60;
        c = minute < 6 ? spec.cpu * 8 * factor * (0.9 + 0.2 * rnd.next()) : spec.cpu * 0.1 * factor;
      }
      if (isRunaway) {
        const { start, plateau } = ON_CALL_INCIDENTS.runaway;
        c = c + ramp(t, start, plateau) * (3.8 - c) * (1 + 0.04 * rnd.gauss());
      }
      if (isCrashing && t > crashStart) c = 0.01 + 0.02 * rnd.next();
      c = Math.max(0.001, c);
      cores[i] = c;
      total += c * STEP;
      counter[i] = total;
    }
    podCpuCores.set(key, cores);
    podCpuCounter.set(key, counter);

    // Working set: the deployment's size, a slow GC sawtooth, noise and a little daily growth.
    const memory = new Float64Array(N);
    const base = spec.memMiB * MiB * factor;
    const sawPeriod = rnd.int(20, 90);
    const sawPhase = rnd.int(0, sawPeriod);
    for (let i = 0; i < N; i++) {
      const t = onCallTimeOf(i);
      const saw = ((i + sawPhase) % sawPeriod) / sawPeriod;
      let bytes = base * (1 + 0.12 * saw + 0.05 * dailyLoad(t) + 0.01 * rnd.gauss());
      if (isRunaway) {
        const { start, end } = ON_CALL_INCIDENTS.runaway;
        bytes +=
          ramp(t, start, end - 3 * HOUR) * (9 * GiB - base) +
          (t > end - 3 * HOUR ? 0.1 * GiB * rnd.next() : 0);
      }
      if (isCrashing && t > crashStart) bytes = 40 * MiB + 200 * MiB * rnd.next();
      memory[i] = Math.round(bytes / 4096) * 4096;
    }
    podMemory.set(key, memory);

    // Restarts: most pods none or a few in the past; a few restart once today; the crash-looping pod loops.
    const restartCount = new Float64Array(N);
    let count = rnd.next() < 0.2 ? rnd.int(1, 3) : 0;
    const restartAt = rnd.next() < 0.04 ? rnd.int(1, N - 1) : -1;
    for (let i = 0; i < N; i++) {
      if (i === restartAt) count += 1;
      if (isCrashing && i > crashStartIndex && CRASH_RESTART_MINUTES.includes(i - crashStartIndex))
        count += 1;
      restartCount[i] = count;
    }
    restarts.set(key, restartCount);
  }

  // up: 1 everywhere but the crash-looping pod's target, which is 1 only in the minute after each restart.
  const up = new Map<string, Float64Array>();
  for (const target of ON_CALL_UP_TARGETS) {
    const values = new Float64Array(N).fill(1);
    if (target.instance === crashLoopingPod.instance && target.job === crashLoopingPod.job)
      for (let i = crashStartIndex; i < N; i++)
        values[i] = CRASH_RESTART_MINUTES.includes(i - crashStartIndex) ? 1 : 0;
    up.set(targetKey(target), values);
  }

  // Nodes: memory available (30–70 %, less at peak load), CPU from the pods they run plus the system's share.
  const nodeMemAvailable = new Map<string, Float64Array>();
  const nodeCpu = new Map<string, { idle: Float64Array; user: Float64Array; system: Float64Array }>();
  for (const node of ON_CALL_NODES) {
    const rnd = random(`node:${node.node}`);
    const baseFree = 0.5 + rnd.next() * 0.1;
    const available = new Float64Array(N);
    let wobble = 0;
    for (let i = 0; i < N; i++) {
      const t = onCallTimeOf(i);
      wobble = 0.9 * wobble + 0.1 * rnd.gauss();
      let ratio = Math.min(
        0.7,
        Math.max(0.3, baseFree - 0.15 * dailyLoad(t) + 0.04 * wobble + 0.005 * rnd.gauss()),
      );
      if (node === lowMemoryNode) {
        const { start, floor } = ON_CALL_INCIDENTS.lowMemory;
        const low = 0.02 + 0.002 * rnd.gauss();
        ratio += ramp(t, start, floor) * (low - ratio);
      }
      available[i] = Math.round((ratio * node.memTotalBytes) / 4096) * 4096;
    }
    nodeMemAvailable.set(node.node, available);

    const podsHere = TOPOLOGY.pods.filter((p) => p.node === node.node);
    const idle = new Float64Array(N);
    const user = new Float64Array(N);
    const system = new Float64Array(N);
    const uptime = rnd.int(3, 40) * 86_400 * node.cores;
    let [idleTotal, userTotal, systemTotal] = [uptime * 0.7, uptime * 0.24, uptime * 0.06];
    for (let i = 0; i < N; i++) {
      let busy = 0.08 + 0.03 * node.cores * (1 + 0.1 * rnd.gauss());
      for (const p of podsHere) busy += podCpuCores.get(podKey(p.namespace, p.pod))?.[i] ?? 0;
      const busyShare = Math.min(0.985, busy / node.cores);
      const seconds = node.cores * STEP;
      const systemShare = busyShare * (0.15 + 0.05 * rnd.next());
      userTotal += seconds * (busyShare - systemShare);
      systemTotal += seconds * systemShare;
      idleTotal += seconds * (1 - busyShare);
      // node_exporter reports centiseconds (USER_HZ = 100).
      idle[i] = Math.round(idleTotal * 100) / 100;
      user[i] = Math.round(userTotal * 100) / 100;
      system[i] = Math.round(systemTotal * 100) / 100;
    }
    nodeCpu.set(node.node, { idle, user, system });
  }

  // HTTP: per pod and minute, requests by method and code; the histogram counts the same requests.
  const requests = new Map<string, Map<string, Float64Array>>();
  const latency = new Map<string, { buckets: Float64Array[]; sum: Float64Array; count: Float64Array }>();
  const bounds = LATENCY_BUCKETS.map((le) => (le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le)));
  for (const service of ON_CALL_SERVICES) {
    const traffic = TRAFFIC[service.service as (typeof SERVICE_NAMES)[number]];
    for (const pod of service.pods) {
      const rnd = random(`http:${service.service}/${pod}`);
      const podFactor = 0.9 + rnd.next() * 0.2;
      const counters = new Map<string, Float64Array>();
      const totals: Record<string, number> = {};
      for (const method of ["GET", "POST"])
        for (const code of ["200", "404", "500"]) {
          counters.set(`${method} ${code}`, new Float64Array(N));
          totals[`${method} ${code}`] = Math.round(
            rnd.next() *
              2e6 *
              (method === "GET" ? traffic.getShare : 1 - traffic.getShare) *
              (code === "200" ? 1 : 0.005),
          );
        }
      const buckets = bounds.map(() => new Float64Array(N));
      const sum = new Float64Array(N);
      const count = new Float64Array(N);
      // The histogram starts from the pod's past requests (before `start`), spread by the normal latency.
      const pastRequests = rnd.int(200_000, 2_000_000);
      const pastCdf = bounds.map((le) => lognormalCdf(le, traffic.median, LATENCY_SIGMA));
      let bucketTotals = pastCdf.map((f) => Math.round(pastRequests * f));
      let sumTotal = pastRequests * traffic.median * Math.exp((LATENCY_SIGMA * LATENCY_SIGMA) / 2);
      let countTotal = pastRequests;
      for (let i = 0; i < N; i++) {
        const t = onCallTimeOf(i);
        const perMinute = traffic.rps * 60 * podFactor * dailyLoad(t) * (1 + 0.06 * rnd.gauss());
        let errorShare = 0.001 + 0.002 * rnd.next();
        if (service.service === errorService) {
          const { start, end } = ON_CALL_INCIDENTS.errors;
          errorShare +=
            ramp(t, start, start + 3 * MINUTE) *
            (0.2 + 0.015 * rnd.gauss() - errorShare) *
            (t <= end ? 1 : 0);
        }
        let minuteTotal = 0;
        for (const method of ["GET", "POST"]) {
          const n = Math.max(
            0,
            Math.round(perMinute * (method === "GET" ? traffic.getShare : 1 - traffic.getShare)),
          );
          const notFound = binomial(rnd, n, method === "GET" ? 0.012 : 0.002);
          const errors = binomial(rnd, n - notFound, errorShare);
          const shares: Record<string, number> = {
            "200": n - notFound - errors,
            "404": notFound,
            "500": errors,
          };
          for (const code of ["200", "404", "500"]) {
            const k = `${method} ${code}`;
            totals[k] = (totals[k] ?? 0) + (shares[code] ?? 0);
            const series = counters.get(k);
            if (series) series[i] = totals[k] ?? 0;
          }
          minuteTotal += n;
        }
        // Latency: log-normal around the service's median (a little slower at peak); the slow service's
        // median climbs 20-fold during its incident.
        let median = traffic.median * (0.9 + 0.2 * dailyLoad(t)) * (1 + 0.03 * rnd.gauss());
        if (service.service === slowService) {
          const { start } = ON_CALL_INCIDENTS.latency;
          median *= 1 + 19 * ramp(t, start, start + 5 * MINUTE);
        }
        bucketTotals = bucketTotals.map(
          (total, b) => total + Math.round(minuteTotal * lognormalCdf(bounds[b] ?? 0, median, LATENCY_SIGMA)),
        );
        bucketTotals.forEach((total, b) => {
          const series = buckets[b];
          if (series) series[i] = total;
        });
        sumTotal +=
          minuteTotal * median * Math.exp((LATENCY_SIGMA * LATENCY_SIGMA) / 2) * (1 + 0.02 * rnd.gauss());
        countTotal += minuteTotal;
        sum[i] = sumTotal;
        count[i] = countTotal;
      }
      requests.set(pod, counters);
      latency.set(pod, { buckets, sum, count });
    }
  }

  return {
    nodeMemAvailable,
    nodeCpu,
    podCpuCores,
    podCpuCounter,
    podMemory,
    restarts,
    up,
    requests,
    latency,
  };
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26, error < 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

function lognormalCdf(x: number, median: number, sigma: number): number {
  if (x === Number.POSITIVE_INFINITY) return 1;
  return normalCdf(Math.log(x / median) / sigma);
}

/** A binomial draw, by its normal approximation (exact enough for request counts). */
function binomial(rnd: Random, n: number, p: number): number {
  if (n <= 0) return 0;
  const mean = n * p;
  return Math.min(n, Math.max(0, Math.round(mean + Math.sqrt(mean * (1 - p)) * rnd.gauss())));
}

// ---------------------------------------------------------------------------------------------------------
// Series and OpenMetrics text

interface Family {
  /** The family's name (a counter's without `_total`). */
  family: string;
  type: "counter" | "gauge" | "histogram";
  help: string;
  series(): Iterable<SeriesData>;
}

function families(): Family[] {
  const m = model();
  const nodeLabels = (n: OnCallNode) => ({ job: "node-exporter", instance: n.instance, node: n.node });
  const get = <T>(map: Map<string, T>, key: string): T => {
    const value = map.get(key);
    if (value === undefined) throw new Error(`no values for ${key}`);
    return value;
  };
  return [
    {
      family: ON_CALL_METRICS.memTotal,
      type: "gauge",
      help: "Memory information field MemTotal_bytes.",
      *series() {
        for (const n of ON_CALL_NODES)
          yield {
            name: ON_CALL_METRICS.memTotal,
            labels: nodeLabels(n),
            values: new Float64Array(N).fill(n.memTotalBytes),
          };
      },
    },
    {
      family: ON_CALL_METRICS.memAvailable,
      type: "gauge",
      help: "Memory information field MemAvailable_bytes.",
      *series() {
        for (const n of ON_CALL_NODES)
          yield {
            name: ON_CALL_METRICS.memAvailable,
            labels: nodeLabels(n),
            values: get(m.nodeMemAvailable, n.node),
          };
      },
    },
    {
      family: "node_cpu_seconds",
      type: "counter",
      help: "Seconds the CPUs spent in each mode.",
      *series() {
        for (const n of ON_CALL_NODES) {
          const cpu = get(m.nodeCpu, n.node);
          for (const mode of ["idle", "system", "user"] as const)
            yield { name: ON_CALL_METRICS.nodeCpu, labels: { ...nodeLabels(n), mode }, values: cpu[mode] };
        }
      },
    },
    {
      family: "container_cpu_usage_seconds",
      type: "counter",
      help: "Cumulative cpu time consumed in seconds.",
      *series() {
        for (const p of ON_CALL_PODS)
          yield {
            name: ON_CALL_METRICS.podCpu,
            labels: { namespace: p.namespace, pod: p.pod, container: p.container, node: p.node },
            values: get(m.podCpuCounter, podKey(p.namespace, p.pod)),
          };
      },
    },
    {
      family: ON_CALL_METRICS.podMemory,
      type: "gauge",
      help: "Current working set in bytes.",
      *series() {
        for (const p of ON_CALL_PODS)
          yield {
            name: ON_CALL_METRICS.podMemory,
            labels: { namespace: p.namespace, pod: p.pod, container: p.container },
            values: get(m.podMemory, podKey(p.namespace, p.pod)),
          };
      },
    },
    {
      family: "kube_pod_container_status_restarts",
      type: "counter",
      help: "The number of container restarts per container.",
      *series() {
        for (const p of ON_CALL_PODS)
          yield {
            name: ON_CALL_METRICS.restarts,
            labels: { namespace: p.namespace, pod: p.pod, container: p.container },
            values: get(m.restarts, podKey(p.namespace, p.pod)),
          };
      },
    },
    {
      family: "up",
      type: "gauge",
      help: "Whether the last scrape of the target succeeded.",
      *series() {
        for (const target of ON_CALL_UP_TARGETS)
          yield {
            name: "up",
            labels: { job: target.job, instance: target.instance },
            values: get(m.up, targetKey(target)),
          };
      },
    },
    {
      family: "http_requests",
      type: "counter",
      help: "Total number of HTTP requests.",
      *series() {
        for (const s of ON_CALL_SERVICES)
          for (const pod of s.pods)
            for (const [key, values] of get(m.requests, pod)) {
              const [method = "", code = ""] = key.split(" ");
              yield {
                name: ON_CALL_METRICS.httpRequests,
                labels: { service: s.service, pod, method, code },
                values,
              };
            }
      },
    },
    {
      family: "http_request_duration_seconds",
      type: "histogram",
      help: "HTTP request latency.",
      *series() {
        for (const s of ON_CALL_SERVICES)
          for (const pod of s.pods) {
            const h = get(m.latency, pod);
            const labels = { service: s.service, pod };
            for (const [b, le] of LATENCY_BUCKETS.entries())
              yield {
                name: ON_CALL_METRICS.latencyBucket,
                labels: { ...labels, le },
                values: h.buckets[b] ?? new Float64Array(N),
              };
            yield { name: ON_CALL_METRICS.latencySum, labels, values: h.sum };
            yield { name: ON_CALL_METRICS.latencyCount, labels, values: h.count };
          }
      },
    },
    ...plantedFamilies(),
    fleetFamily(),
  ];
}

/** Every series of the dataset with its 1,441 values (sample i at `start + 60 i`), in generation order. */
export function* onCallSeries(): Generator<SeriesData & { type: Family["type"] }> {
  for (const family of families())
    for (const series of family.series()) yield { ...series, type: family.type };
}

/** How many series each metric name has. */
export function onCallSeriesCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { name } of onCallSeries()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(",");
}

/**
 * The dataset in OpenMetrics text, one chunk per series (≈ 150–250 kB), so it is streamed to the file and never
 * held as one string. Pass the function itself as `openMetrics`.
 */
export function* onCallOpenMetricsChunks(): Generator<string> {
  yield* openMetricsOf(families());
}

/** The ~180-pod fleet's series alone (ON_CALL_FLEET), in the same text: a test of them loads in seconds. */
export function* onCallFleetOpenMetricsChunks(): Generator<string> {
  yield* openMetricsOf([fleetFamily()]);
}

/** The planted change points' series alone (ON_CALL_PLANTED), in the same text: a test of them loads in seconds. */
export function* onCallPlantedOpenMetricsChunks(): Generator<string> {
  yield* openMetricsOf(plantedFamilies());
}

function* openMetricsOf(list: readonly Family[]): Generator<string> {
  for (const family of list) {
    yield `# HELP ${family.family} ${family.help}\n# TYPE ${family.family} ${family.type}\n`;
    for (const series of family.series()) {
      const prefix = `${series.name}{${labelText(series.labels)}} `;
      const values = series.values;
      let chunk = "";
      for (let i = 0; i < N; i++) chunk += `${prefix}${values[i]} ${START + i * STEP}\n`;
      yield chunk;
    }
  }
  yield "# EOF\n";
}

// ---------------------------------------------------------------------------------------------------------
// Planted change points (issue 38): generated after everything else, from their own random streams, so
// the series above keep their values.

/** Sample index `minutes` before the last. */
const minutesBeforeEnd = (minutes: number) => N - 1 - minutes;

/**
 * `planted_change_signal{shape}`: one series per kind of change over the day, each with its onset (and a
 * spike's end) at a sample, and `worker_queue_depth{worker}`: eight workers following one daily cycle,
 * one of them at a slightly larger amplitude (so at its usual daily peak it is above the others), one
 * stepping up an hour before `end`.
 */
export const ON_CALL_PLANTED = {
  /** An error ratio leaving its baseline: 1 % → 4 %. */
  step: { at: onCallTimeOf(minutesBeforeEnd(247)), before: 0.01, after: 0.04, noise: 0.001 },
  /** A memory leak starting six hours before `end`: 512 MiB, then +50 MiB an hour. */
  ramp: { at: onCallTimeOf(minutesBeforeEnd(360)), before: 512 * MiB, perHour: 50 * MiB, noise: 2 * MiB },
  /** A 20-minute latency spike in the night before (03:16 UTC), that ended. */
  spike: { at: onCallTimeOf(303), endedAt: onCallTimeOf(323), before: 0.15, after: 1.2, noise: 0.01 },
  /** Flat with noise. */
  flat: { level: 100, noise: 2 },
  /** Only the daily load cycle (0.35 at 05:00 UTC, 1 at 17:00 UTC) with noise. */
  cycle: { level: 1000, noise: 10 },
  queue: {
    workers: 8,
    level: 200,
    noise: 3,
    /** Its cycle 10 % larger than the others'. */
    larger: { worker: "worker-7", amplitude: 1.1 },
    /** Stepped up by `by` an hour before `end`. */
    changed: { worker: "worker-3", at: onCallTimeOf(minutesBeforeEnd(60)), by: 40 },
  },
} as const;

export type PlantedShape = "step" | "ramp" | "spike" | "flat" | "cycle";

function plantedValues(shape: PlantedShape): Float64Array {
  const rnd = random(`planted:${shape}`);
  const values = new Float64Array(N);
  const { step, ramp, spike, flat, cycle } = ON_CALL_PLANTED;
  for (let i = 0; i < N; i++) {
    const t = onCallTimeOf(i);
    const gauss = rnd.gauss();
    if (shape === "step") values[i] = (t >= step.at ? step.after : step.before) + step.noise * gauss;
    else if (shape === "ramp")
      values[i] = Math.round(
        ramp.before + (Math.max(0, t - ramp.at) / HOUR) * ramp.perHour + ramp.noise * gauss,
      );
    else if (shape === "spike")
      values[i] = (t >= spike.at && t < spike.endedAt ? spike.after : spike.before) + spike.noise * gauss;
    else if (shape === "flat") values[i] = flat.level + flat.noise * gauss;
    else values[i] = cycle.level * dailyLoad(t) + cycle.noise * gauss;
  }
  return values;
}

function queueDepth(worker: string): Float64Array {
  const { level, noise, larger, changed } = ON_CALL_PLANTED.queue;
  const rnd = random(`planted:queue:${worker}`);
  const amplitude = worker === larger.worker ? larger.amplitude : 1;
  const values = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const t = onCallTimeOf(i);
    const step = worker === changed.worker && t >= changed.at ? changed.by : 0;
    values[i] = level * amplitude * dailyLoad(t) + step + noise * rnd.gauss();
  }
  return values;
}

function plantedFamilies(): Family[] {
  const shapes: readonly PlantedShape[] = ["step", "ramp", "spike", "flat", "cycle"];
  return [
    {
      family: ON_CALL_METRICS.plantedSignal,
      type: "gauge",
      help: "A planted change of each kind: step, ramp, spike (ended), none (flat), a daily cycle only.",
      *series() {
        for (const shape of shapes)
          yield { name: ON_CALL_METRICS.plantedSignal, labels: { shape }, values: plantedValues(shape) };
      },
    },
    {
      family: ON_CALL_METRICS.queueDepth,
      type: "gauge",
      help: "Jobs waiting per worker.",
      *series() {
        for (let k = 1; k <= ON_CALL_PLANTED.queue.workers; k++) {
          const worker = `worker-${k}`;
          yield { name: ON_CALL_METRICS.queueDepth, labels: { worker }, values: queueDepth(worker) };
        }
      },
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------
// A fleet of 180 pods with long labels (issue 38, item 4: every series in view): generated after
// everything else, from its own random streams, so the series above keep their values.

/** A deployment of the fleet: its container (and image), namespace, replicas and typical working set. */
interface FleetDeployment {
  container: string;
  namespace: string;
  version: string;
  replicas: number;
  bytes: number;
  /** Follows the daily load cycle (its caches grow with traffic). */
  cyclic?: boolean;
}

/** In the dataset's namespaces (ON_CALL_NAMESPACES): their label values stay as they were. */
const FLEET_DEPLOYMENTS: readonly FleetDeployment[] = [
  { container: "api-gateway", namespace: "frontend", version: "2.14.3", replicas: 30, bytes: 300 * MiB },
  { container: "checkout-service", namespace: "checkout", version: "5.2.0", replicas: 24, bytes: 450 * MiB },
  { container: "catalog-search", namespace: "catalog", version: "3.8.1", replicas: 28, bytes: 1.2 * GiB },
  {
    container: "recommendation-engine",
    namespace: "recommendations",
    version: "1.31.0",
    replicas: 20,
    bytes: 2.5 * GiB,
    cyclic: true,
  },
  { container: "session-cache", namespace: "auth", version: "7.0.12", replicas: 18, bytes: 800 * MiB },
  { container: "payment-processor", namespace: "payments", version: "4.4.2", replicas: 16, bytes: 600 * MiB },
  {
    container: "notification-worker",
    namespace: "notifications",
    version: "0.9.7",
    replicas: 22,
    bytes: 250 * MiB,
  },
  { container: "image-resizer", namespace: "catalog", version: "2.0.5", replicas: 22, bytes: 500 * MiB },
];

/** One pod of the fleet: every label its series carries. */
export interface FleetPod {
  namespace: string;
  pod: string;
  container: string;
  image: string;
  node: string;
  instance: string;
}

/**
 * `container_memory_usage_bytes{job="kubelet",namespace,pod,container,image,node,instance}` of 180 pods
 * over the day: 8 containers of one long image each, on 20 nodes each scraped at `10.0.a.b:10250`. Most
 * are flat with noise (the recommendation engine's follow the daily cycle); two leak, one restarted.
 */
export const ON_CALL_FLEET = (() => {
  const rnd = random("fleet:topology");
  const hex = (length: number) => Array.from({ length }, () => rnd.int(0, 15).toString(16)).join("");
  const name = (length: number) => Array.from({ length }, () => rnd.pick([...K8S_ALPHABET])).join("");
  const usedIps = new Set<string>();
  const nodes: Array<{ node: string; instance: string }> = [];
  while (nodes.length < 20) {
    const [a, b] = [rnd.int(96, 127), rnd.int(4, 250)];
    if (usedIps.has(`${a}.${b}`)) continue;
    usedIps.add(`${a}.${b}`);
    nodes.push({ node: `ip-10-0-${a}-${b}.ec2.internal`, instance: `10.0.${a}.${b}:10250` });
  }
  const usedNames = new Set<string>();
  const pods: FleetPod[] = [];
  for (const spec of FLEET_DEPLOYMENTS) {
    const image = `registry.example.internal/team/${spec.container}:${spec.version}-${hex(12)}`;
    const hash = name(10);
    for (let r = 0; r < spec.replicas; r++) {
      let pod: string;
      do pod = `${spec.container}-${hash}-${name(5)}`;
      while (usedNames.has(pod));
      usedNames.add(pod);
      const { node, instance } = rnd.pick(nodes);
      pods.push({ namespace: spec.namespace, pod, container: spec.container, image, node, instance });
    }
  }
  const find = (container: string, replica: number) =>
    pods.filter((p) => p.container === container)[replica] as FleetPod;
  return {
    metric: ON_CALL_METRICS.fleetMemory,
    job: "kubelet",
    pods: pods as readonly FleetPod[],
    /** Leaking from `at` on, `perHour` bytes an hour. */
    leaks: [
      { pod: find("catalog-search", 3).pod, at: onCallTimeOf(minutesBeforeEnd(600)), perHour: 80 * MiB },
      { pod: find("session-cache", 5).pod, at: START, perHour: 25 * MiB },
    ],
    /** Restarted at `at`: its working set fell to a tenth and warmed back up over half an hour. */
    restarted: { pod: find("api-gateway", 7).pod, at: onCallTimeOf(minutesBeforeEnd(200)) },
  };
})();

function fleetValues(pod: FleetPod): Float64Array {
  const rnd = random(`fleet:${pod.pod}`);
  const spec = FLEET_DEPLOYMENTS.find((d) => d.container === pod.container) as FleetDeployment;
  const level = spec.bytes * (0.85 + 0.3 * rnd.next());
  const leak = ON_CALL_FLEET.leaks.find((l) => l.pod === pod.pod);
  const restarted = ON_CALL_FLEET.restarted.pod === pod.pod ? ON_CALL_FLEET.restarted.at : undefined;
  const values = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const t = onCallTimeOf(i);
    let bytes = spec.cyclic ? level * (0.8 + 0.2 * dailyLoad(t)) : level;
    if (leak !== undefined) bytes += (Math.max(0, t - leak.at) / HOUR) * leak.perHour;
    if (restarted !== undefined && t >= restarted)
      bytes *= 0.1 + 0.9 * ramp(t, restarted, restarted + 30 * MINUTE);
    values[i] = Math.round(bytes * (1 + 0.01 * rnd.gauss()));
  }
  return values;
}

function fleetFamily(): Family {
  return {
    family: ON_CALL_METRICS.fleetMemory,
    type: "gauge",
    help: "Current memory usage in bytes, including all memory regardless of when it was accessed.",
    *series() {
      for (const pod of ON_CALL_FLEET.pods)
        yield {
          name: ON_CALL_METRICS.fleetMemory,
          labels: { job: ON_CALL_FLEET.job, ...pod },
          values: fleetValues(pod),
        };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Expectations computed without Prometheus

/** `node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes` of a node at epoch second t. */
export function memoryAvailableRatio(node: string, t: number): number {
  const n = ON_CALL_NODES.find((x) => x.node === node);
  const available = model().nodeMemAvailable.get(node)?.[onCallSampleIndexAt(t)];
  if (!n || available === undefined) throw new Error(`no node ${node}`);
  return available / n.memTotalBytes;
}

/** The nodes sorted by available memory ratio at epoch second t, lowest first. */
export function nodesByAvailableMemory(t: number): { node: string; ratio: number }[] {
  return ON_CALL_NODES.map((n) => ({ node: n.node, ratio: memoryAvailableRatio(n.node, t) })).sort(
    (a, b) => a.ratio - b.ratio,
  );
}

/** The CPU a pod used in the minute ending at sample i (cores): what `rate(…[5m])` averages. */
export function podCpuCores(namespace: string, pod: string, i: number): number {
  const value = model().podCpuCores.get(podKey(namespace, pod))?.[i];
  if (value === undefined) throw new Error(`no pod ${namespace}/${pod} or sample ${i}`);
  return value;
}

/** The pods' mean CPU (cores) over samples (from, to], highest first. */
export function podsByMeanCpu(
  fromIndex: number,
  toIndex: number,
): { namespace: string; pod: string; cores: number }[] {
  return ON_CALL_PODS.map((p) => {
    let total = 0;
    for (let i = fromIndex + 1; i <= toIndex; i++) total += podCpuCores(p.namespace, p.pod, i);
    return { namespace: p.namespace, pod: p.pod, cores: total / (toIndex - fromIndex) };
  }).sort((a, b) => b.cores - a.cores);
}

/** The restarts counter's growth over the whole day, per pod, highest first. */
export function podsByRestartsToday(): { namespace: string; pod: string; restarts: number }[] {
  return ON_CALL_PODS.map((p) => {
    const values = model().restarts.get(podKey(p.namespace, p.pod));
    return { namespace: p.namespace, pod: p.pod, restarts: (values?.[N - 1] ?? 0) - (values?.[0] ?? 0) };
  }).sort((a, b) => b.restarts - a.restarts);
}

/** A target's `up` at epoch second t. */
export function upAt(target: OnCallTarget, t: number): number {
  const value = model().up.get(targetKey(target))?.[onCallSampleIndexAt(t)];
  if (value === undefined) throw new Error(`no target ${targetKey(target)}`);
  return value;
}

/** A service's share of 500s among its requests over samples (from, to]. */
export function serviceErrorRatio(service: string, fromIndex: number, toIndex: number): number {
  const s = ON_CALL_SERVICES.find((x) => x.service === service);
  if (!s) throw new Error(`no service ${service}`);
  let errors = 0;
  let all = 0;
  for (const pod of s.pods)
    for (const [key, values] of model().requests.get(pod) ?? []) {
      const delta = (values[toIndex] ?? 0) - (values[fromIndex] ?? 0);
      all += delta;
      if (key.endsWith(" 500")) errors += delta;
    }
  return errors / all;
}

// ---------------------------------------------------------------------------------------------------------
// On-call questions

export interface OnCallQuestion {
  id: string;
  title: string;
  tool: "ExecuteQuery" | "ExecuteRangeQuery";
  /** The tool's arguments (without `workspace_id`): absolute Unix seconds from the dataset. */
  args: Record<string, string>;
  /** The planted outlier that must be among the returned series when they are ordered most unusual first. */
  expectTop?: { label: string; value: string; why: string };
}

const day = { start: String(START), end: String(END), step: "60" };
const now = String(END);
const CPU_BY_POD = "sum by (namespace, pod) (rate(container_cpu_usage_seconds_total[5m]))";

export const ON_CALL_QUESTIONS: readonly OnCallQuestion[] = [
  {
    id: "node-memory-available-now",
    title: "Which nodes are low on memory right now?",
    tool: "ExecuteQuery",
    args: { query: "node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes", time: now, limit: "3" },
    expectTop: {
      label: "node",
      value: lowMemoryNode.node,
      why: "~2 % available while every other node has 30–70 %",
    },
  },
  {
    id: "node-memory-available-day",
    title: "Available memory per node over the day",
    tool: "ExecuteRangeQuery",
    args: { query: "node_memory_MemAvailable_bytes", ...day },
    expectTop: {
      label: "node",
      value: lowMemoryNode.node,
      why: "falls to ~2 % of its total in the last hours",
    },
  },
  {
    id: "up-last-6h",
    title: "Which scrape targets were down in the last 6 hours?",
    tool: "ExecuteRangeQuery",
    args: { query: "up", start: String(END - 6 * HOUR), end: now, step: "60" },
    expectTop: {
      label: "instance",
      value: crashLoopingPod.instance,
      why: "the only target not always 1: it flaps during the crash loop and is 0 at the end",
    },
  },
  {
    id: "up-now",
    title: "Is every target up now?",
    tool: "ExecuteQuery",
    args: { query: "up", time: now },
    expectTop: { label: "instance", value: crashLoopingPod.instance, why: "the only target at 0 among 128" },
  },
  {
    id: "pod-cpu-day",
    title: "CPU per pod over the day",
    tool: "ExecuteRangeQuery",
    args: { query: CPU_BY_POD, ...day },
    expectTop: {
      label: "pod",
      value: runawayPod.pod,
      why: "climbs to ~3.8 cores; every other pod stays under 1 core",
    },
  },
  {
    id: "pod-cpu-now",
    title: "Which pods use the most CPU right now?",
    tool: "ExecuteQuery",
    args: { query: CPU_BY_POD, time: now },
    expectTop: { label: "pod", value: runawayPod.pod, why: "~3.8 cores; every other pod under 1 core" },
  },
  {
    id: "pod-memory-day",
    title: "Memory working set per pod over the day",
    tool: "ExecuteRangeQuery",
    args: { query: "sum by (namespace, pod) (container_memory_working_set_bytes)", ...day },
    expectTop: {
      label: "pod",
      value: runawayPod.pod,
      why: "grows to ~9 GiB; every other pod stays under 3 GiB",
    },
  },
  {
    id: "pod-restarts-day",
    title: "Which pods restarted today?",
    tool: "ExecuteQuery",
    args: {
      query: "sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total[1d]))",
      time: now,
    },
    expectTop: {
      label: "pod",
      value: crashLoopingPod.pod,
      why: `restarts ${CRASH_LOOP_RESTARTS} times in its crash loop; the others at most once`,
    },
  },
  {
    id: "service-error-ratio-day",
    title: "5xx ratio by service over the day",
    tool: "ExecuteRangeQuery",
    args: {
      query:
        'sum by (service) (rate(http_requests_total{code="500"}[5m])) / sum by (service) (rate(http_requests_total[5m]))',
      ...day,
    },
    expectTop: {
      label: "service",
      value: errorService,
      why: "~20 % 500s in the last hour; the others ~0.2 %",
    },
  },
  {
    id: "service-request-rate-by-code-day",
    title: "Request rate by service and code over the day",
    tool: "ExecuteRangeQuery",
    args: { query: "sum by (service, code) (rate(http_requests_total[5m]))", ...day },
  },
  {
    id: "pod-p99-latency-day",
    title: "p99 latency per pod over the day",
    tool: "ExecuteRangeQuery",
    args: { query: "histogram_quantile(0.99, rate(http_request_duration_seconds_bucket[5m]))", ...day },
    expectTop: {
      label: "service",
      value: slowService,
      why: "its pods' p99 goes from ~200 ms to ~4 s at the end",
    },
  },
  {
    id: "service-p99-latency-day",
    title: "p99 latency per service over the day",
    tool: "ExecuteRangeQuery",
    args: {
      query:
        "histogram_quantile(0.99, sum by (service, le) (rate(http_request_duration_seconds_bucket[5m])))",
      ...day,
    },
    expectTop: {
      label: "service",
      value: slowService,
      why: "p99 ~4 s at the end; every other service under 0.5 s",
    },
  },
  {
    id: "node-cpu-busy-day",
    title: "CPU busy ratio per node over the day",
    tool: "ExecuteRangeQuery",
    args: {
      query:
        '1 - sum by (node) (rate(node_cpu_seconds_total{mode="idle"}[5m])) / sum by (node) (rate(node_cpu_seconds_total[5m]))',
      ...day,
    },
    expectTop: { label: "node", value: lowMemoryNode.node, why: "the runaway pod saturates its 4 cores" },
  },
  {
    id: "latency-buckets-now",
    title: "Every latency histogram bucket now",
    tool: "ExecuteQuery",
    args: { query: ON_CALL_METRICS.latencyBucket, time: now },
  },
];

/**
 * A day of the fleet's memory (ON_CALL_FLEET), every label as Prometheus stores it, at the dataset's 60 s:
 * what an on-call engineer asks first to see whether anything else is affected. Kept apart from
 * ON_CALL_QUESTIONS (whose answers other tests check one by one): the series-in-view test and bench ask it.
 */
export const ON_CALL_FLEET_QUESTION: OnCallQuestion = {
  id: "fleet-memory-day",
  title: "Memory of each of the fleet's 180 pods over the day",
  tool: "ExecuteRangeQuery",
  args: { query: ON_CALL_METRICS.fleetMemory, ...day },
  expectTop: {
    label: "pod",
    value: ON_CALL_FLEET.leaks[0]?.pod ?? "",
    why: "leaks 80 MiB an hour for the last 10 hours; the others flat, cyclic or restarted",
  },
};
