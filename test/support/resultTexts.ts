/**
 * The texts this server emits, for calibrating and testing the token estimator (src/results/tokens.ts):
 * Prometheus query results (vectors and matrices, as Prometheus sends them and as the server returns them
 * with `exact` or under PYTHON_COMPAT), the legacy `series_stats` table of a cut result and a legacy cut
 * result whole (`truncated` with its note, the table, the kept series downsampled); the compact form's
 * answers (a range answer's curves on its steps, the lean `series_stats` with RFC 3339 times and change
 * columns, a cut compact answer); metric name lists and plain English prose, as compact JSON and indented by 2.
 *
 * Every generator draws from a {@link Source}: {@link seededSource} makes the deterministic corpus
 * ({@link resultCorpus}), {@link genSource} makes fast-check arbitraries ({@link resultTextArbitrary}) from
 * the same code, so a property test sees the same shapes with random content (pod hashes from the Kubernetes
 * alphabet, hex ids, UUIDs, IPs, floats of every length, NaN and ±Inf, unicode label values).
 *
 * @example
 * ```ts
 * for (const { kind, indented, text } of resultCorpus()) estimateTokens(text);
 * test.prop([resultTextArbitrary()])("safe", ({ text }) => …);
 * ```
 */
import fc from "fast-check";

// ---------------------------------------------------------------------------------------------
// Randomness

/** Where a generator's choices come from. */
export interface Source {
  /** An integer from min to max, both included. */
  int(min: number, max: number): number;
  /** A number from 0 (included) to 1 (excluded). */
  float(): number;
}

/** A deterministic source (mulberry32): the same seed gives the same texts. */
export function seededSource(seed: number): Source {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    float: next,
  };
}

/** A source drawing from fast-check (`fc.gen()`), so that failures shrink. */
export function genSource(g: fc.GeneratorValue): Source {
  return {
    int: (min, max) => g(fc.integer, { min, max }),
    float: () => g(fc.integer, { min: 0, max: 2 ** 30 - 1 }) / 2 ** 30,
  };
}

const pick = <T>(src: Source, items: readonly T[]): T => items[src.int(0, items.length - 1)] as T;
const chance = (src: Source, p: number): boolean => src.float() < p;
const repeat = (count: number, make: (i: number) => string): string =>
  Array.from({ length: count }, (_, i) => make(i)).join("");

// ---------------------------------------------------------------------------------------------
// Label values

/** The alphabet of Kubernetes' generated name suffixes (no vowels, no 0/1/3, so no words and no look-alikes). */
export const K8S_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const HEX = "0123456789abcdef";

const chars = (src: Source, alphabet: string, count: number) =>
  repeat(count, () => alphabet[src.int(0, alphabet.length - 1)] as string);

export const hexId = (src: Source, length: number) => chars(src, HEX, length);
export const uuid = (src: Source) =>
  `${hexId(src, 8)}-${hexId(src, 4)}-4${hexId(src, 3)}-${pick(src, ["8", "9", "a", "b"])}${hexId(src, 3)}-${hexId(src, 12)}`;

const NAMESPACES: Record<string, readonly string[]> = {
  payments: ["payments-api", "payments-worker", "ledger", "fraud-scoring"],
  checkout: ["checkout", "cart", "pricing", "checkout-gateway"],
  frontend: ["frontend", "web", "storefront-bff"],
  search: ["search-api", "indexer", "query-suggest"],
  inventory: ["inventory", "stock-sync", "warehouse-events"],
  "kube-system": ["coredns", "aws-load-balancer-controller", "metrics-server", "ebs-csi-controller"],
  monitoring: ["prometheus-operator", "kube-state-metrics", "grafana", "alertmanager-main"],
  "ingress-nginx": ["ingress-nginx-controller"],
  "cert-manager": ["cert-manager", "cert-manager-webhook", "cert-manager-cainjector"],
  argocd: ["argocd-server", "argocd-repo-server", "argocd-applicationset-controller"],
  "istio-system": ["istiod", "istio-ingressgateway"],
  default: ["hello-world", "nginx"],
};
const DAEMONSETS = ["aws-node", "kube-proxy", "node-exporter", "fluent-bit", "ebs-csi-node", "datadog-agent"];
const STATEFULSETS = [
  "postgres",
  "redis-master",
  "kafka",
  "zookeeper",
  "prometheus-k8s",
  "alertmanager-main",
];
const CONTAINERS = [
  "app",
  "istio-proxy",
  "nginx",
  "server",
  "worker",
  "sidecar",
  "envoy",
  "manager",
  "kube-rbac-proxy",
];
const JOBS = [
  "node-exporter",
  "kube-state-metrics",
  "kubelet",
  "apiserver",
  "prometheus",
  "coredns",
  "payments-api",
  "ingress-nginx-controller",
  "cadvisor",
  "serviceMonitor/monitoring/checkout/0",
];
const REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1", "ap-southeast-2"];
const MODES = ["idle", "user", "system", "iowait", "irq", "softirq", "steal", "nice"];
const DEVICES = ["nvme0n1", "nvme1n1", "xvda", "xvda1", "eth0", "ens5", "lo", "dm-0", "sda1", "veth3a4f2c1"];
const MOUNTPOINTS = ["/", "/var/lib/kubelet", "/run", "/boot/efi", "/var/lib/containerd", "/home", "/data"];
const FSTYPES = ["ext4", "xfs", "tmpfs", "vfat", "overlay"];
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "LIST", "WATCH"];
const CODES = [
  "200",
  "201",
  "204",
  "301",
  "400",
  "401",
  "403",
  "404",
  "409",
  "429",
  "500",
  "502",
  "503",
  "504",
];
const BUCKETS = ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"];
const HANDLERS = [
  "/api/v1/query",
  "/api/v1/query_range",
  "/api/v1/series",
  "/api/v1/label/:name/values",
  "/metrics",
  "/healthz",
  "/readyz",
];
const RESOURCES = ["pods", "deployments", "services", "configmaps", "secrets", "nodes", "events", "leases"];
const WORDS = ["primary", "replica", "blue", "green", "canary", "stable", "batch", "realtime", "internal"];
const TEAMS = ["platform", "payments", "sre", "data-eng", "growth", "identity", "observability"];
/** Label values people write in their own languages (the realistic unicode: letters, CJK, an emoji; no compatibility forms). */
const UNICODE_VALUES = [
  "équipe-paiements",
  "Zürich",
  "São Paulo",
  "München-Süd",
  "Kraków",
  "東京",
  "大阪リージョン",
  "서울-결제",
  "Москва-1",
  "Αθήνα",
  "tél-commerçant",
  "北京-生产",
  "🚀 launch",
  "İstanbul",
  "Ödeme servisi",
  "café-crème",
];
/** Ranges of letters to make random unicode words from (no compatibility characters). */
const SCRIPTS: ReadonlyArray<readonly [number, number]> = [
  [0xe0, 0xff], // Latin-1 accented letters
  [0x100, 0x17f], // Latin Extended-A
  [0x3b1, 0x3c9], // Greek
  [0x430, 0x44f], // Cyrillic
  [0x5d0, 0x5ea], // Hebrew
  [0x627, 0x64a], // Arabic
  [0x905, 0x939], // Devanagari
  [0x3041, 0x3096], // Hiragana
  [0x30a1, 0x30fa], // Katakana
  [0x4e00, 0x9fff], // CJK
  [0xac00, 0xd7a3], // Hangul
  [0x1f600, 0x1f64f], // emoji
];

/** A value in some script other than ASCII, possibly mixed with ASCII. */
export function unicodeValue(src: Source): string {
  if (chance(src, 0.5)) return pick(src, UNICODE_VALUES);
  const [low, high] = pick(src, SCRIPTS);
  const word = repeat(src.int(1, 8), () => String.fromCodePoint(src.int(low, high)));
  return chance(src, 0.5) ? word : `${pick(src, TEAMS)}-${word}`;
}

const ip = (src: Source) => `10.${src.int(0, 3)}.${src.int(0, 255)}.${src.int(1, 254)}`;
/** A pod name as Kubernetes makes it: Deployment (ReplicaSet hash and pod suffix), DaemonSet or StatefulSet. */
export function podName(src: Source, deployment: string): string {
  const kind = src.int(0, 9);
  if (kind < 7)
    return `${deployment}-${chars(src, K8S_ALPHABET, src.int(8, 10))}-${chars(src, K8S_ALPHABET, 5)}`;
  if (kind < 9) return `${pick(src, DAEMONSETS)}-${chars(src, K8S_ALPHABET, 5)}`;
  return `${pick(src, STATEFULSETS)}-${src.int(0, 5)}`;
}
export function nodeName(src: Source, address: string): string {
  const dashed = address.replaceAll(".", "-");
  switch (src.int(0, 3)) {
    case 0:
      return `ip-${dashed}.${pick(src, REGIONS)}.compute.internal`;
    case 1:
      return `gke-prod-default-pool-${hexId(src, 8)}-${chars(src, "abcdefghijklmnopqrstuvwxyz0123456789", 4)}`;
    default:
      return `ip-${dashed}.ec2.internal`;
  }
}

/** A coherent set of label values for one target: the pod is in the namespace and on the node. */
interface Target {
  namespace: string;
  deployment: string;
  pod: string;
  container: string;
  nodeIp: string;
  node: string;
  podIp: string;
}

function target(src: Source): Target {
  const namespace = pick(src, Object.keys(NAMESPACES));
  const deployment = pick(src, NAMESPACES[namespace] as readonly string[]);
  const nodeIp = ip(src);
  return {
    namespace,
    deployment,
    pod: podName(src, deployment),
    container: chance(src, 0.5) ? "app" : pick(src, [...CONTAINERS, deployment]),
    nodeIp,
    node: nodeName(src, nodeIp),
    podIp: ip(src),
  };
}

type LabelKind =
  | "namespace"
  | "pod"
  | "container"
  | "node"
  | "instance"
  | "nodeInstance"
  | "kubeletInstance"
  | "job"
  | "service"
  | "uid"
  | "containerId"
  | "cgroup"
  | "image"
  | "imageId"
  | "cpu"
  | "mode"
  | "device"
  | "mountpoint"
  | "fstype"
  | "method"
  | "code"
  | "le"
  | "handler"
  | "url"
  | "resource"
  | "word"
  | "team"
  | "unicode"
  | "phase"
  | "version"
  | "region"
  | "quantile";

function labelValue(src: Source, kind: LabelKind, t: Target): string {
  switch (kind) {
    case "namespace":
      return t.namespace;
    case "pod":
      return t.pod;
    case "container":
      return t.container;
    case "node":
      return t.node;
    case "instance":
      return `${t.podIp}:${pick(src, ["8080", "9090", "8443", "15090", "9153"])}`;
    case "nodeInstance":
      return `${t.nodeIp}:9100`;
    case "kubeletInstance":
      return chance(src, 0.5) ? `${t.nodeIp}:10250` : t.node;
    case "job":
      return pick(src, JOBS);
    case "service":
      return chance(src, 0.7)
        ? t.deployment
        : `${pick(src, JOBS)}-${pick(src, ["svc", "headless", "metrics"])}`;
    case "uid":
      return uuid(src);
    case "containerId":
      return `containerd://${hexId(src, 64)}`;
    case "cgroup": {
      const qos = pick(src, ["burstable", "besteffort"]);
      return `/kubepods.slice/kubepods-${qos}.slice/kubepods-${qos}-pod${uuid(src).replaceAll("-", "_")}.slice/cri-containerd-${hexId(src, 64)}.scope`;
    }
    case "image":
      return `${src.int(100000000000, 999999999999)}.dkr.ecr.${pick(src, REGIONS)}.amazonaws.com/${t.deployment}:${src.int(0, 3)}.${src.int(0, 40)}.${src.int(0, 12)}`;
    case "imageId":
      return `sha256:${hexId(src, 64)}`;
    case "cpu":
      return chance(src, 0.3) ? "total" : String(src.int(0, 63));
    case "mode":
      return pick(src, MODES);
    case "device":
      return pick(src, DEVICES);
    case "mountpoint":
      return chance(src, 0.8)
        ? pick(src, MOUNTPOINTS)
        : `/var/lib/kubelet/pods/${uuid(src)}/volumes/kubernetes.io~csi/pvc-${uuid(src)}/mount`;
    case "fstype":
      return pick(src, FSTYPES);
    case "method":
      return pick(src, METHODS);
    case "code":
      return pick(src, CODES);
    case "le":
      return pick(src, BUCKETS);
    case "handler":
      return pick(src, HANDLERS);
    case "url":
      return `https://${t.deployment}.${t.namespace}.svc.cluster.local:${pick(src, ["443", "8443"])}/api/v${src.int(1, 2)}/${pick(src, RESOURCES)}/${chance(src, 0.5) ? uuid(src) : src.int(1, 99999)}?page=${src.int(1, 30)}`;
    case "resource":
      return pick(src, RESOURCES);
    case "word":
      return pick(src, WORDS);
    case "team":
      return chance(src, 0.9) ? pick(src, TEAMS) : unicodeValue(src);
    case "unicode":
      // Labels that people fill in (owner, site) are in their own language now and then.
      return chance(src, 0.85)
        ? pick(src, [...TEAMS, ...REGIONS, "Jane Doe", "ops-oncall"])
        : unicodeValue(src);
    case "phase":
      return pick(src, ["Pending", "Running", "Succeeded", "Failed", "Unknown"]);
    case "version":
      return `v1.${src.int(24, 31)}.${src.int(0, 15)}-eks-${hexId(src, 7)}`;
    case "region":
      return pick(src, REGIONS);
    case "quantile":
      return pick(src, ["0", "0.25", "0.5", "0.75", "0.9", "0.99", "1"]);
  }
}

// ---------------------------------------------------------------------------------------------
// Sample values

type ValueKind = "bytes" | "counter" | "rate" | "ratio" | "bool" | "seconds" | "count" | "percent";

/** How Prometheus writes a float: shortest round trip, Go's exponent form for tiny ones, NaN and ±Inf. */
export function prometheusFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  const text = String(value);
  // Go writes two exponent digits at least: 1.5e-07 where JavaScript writes 1.5e-7.
  return text.replace(/e([+-])(\d)$/, "e$10$2");
}

/** A value rounded to 5 significant digits as the server writes it (`17180000000`, `0.000012346`, `1.2346e-7`). */
export const rounded5 = (value: number): number => Number(value.toPrecision(5));

/** A base level for a series, and a sample near it. */
function level(src: Source, kind: ValueKind): number {
  switch (kind) {
    case "bytes":
      return src.int(1, 5) * 10 ** src.int(6, 11) * (0.5 + src.float());
    case "counter":
      return src.float() * 10 ** src.int(2, 12);
    case "rate":
      return src.float() * 10 ** src.int(-8, 4);
    case "ratio":
      return src.float();
    case "bool":
      return src.int(0, 1);
    case "seconds":
      return src.float() * 10 ** src.int(-4, 1);
    case "count":
      return src.int(0, 10 ** src.int(1, 6));
    case "percent":
      return src.float() * 100;
  }
}

function sample(src: Source, kind: ValueKind, base: number, i: number): number {
  if (chance(src, 0.01)) return pick(src, [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  switch (kind) {
    case "bool":
      return chance(src, 0.05) ? 1 - base : base;
    case "count":
      return chance(src, 0.7) ? base : Math.max(0, Math.round(base * (0.8 + src.float() * 0.4)));
    case "bytes":
      // Byte gauges are integers (memory, disk), sometimes averaged (avg_over_time) into fractions.
      return chance(src, 0.8)
        ? Math.round(base * (0.9 + src.float() * 0.2))
        : base * (0.9 + src.float() * 0.2);
    case "counter": {
      // Counters grow; some hold whole numbers, some hundredths (CPU seconds), some float noise.
      const value = base + i * src.float() * base * 0.001;
      const style = src.int(0, 2);
      return style === 0 ? Math.round(value) : style === 1 ? Math.round(value * 100) / 100 : value;
    }
    default:
      return chance(src, 0.05) ? 0 : base * (0.5 + src.float());
  }
}

// ---------------------------------------------------------------------------------------------
// Metric families

export interface Family {
  /** Undefined for an expression's result (rate, sum by …): no `__name__`. */
  name: string | undefined;
  labels: ReadonlyArray<readonly [string, LabelKind]>;
  value: ValueKind;
  /** The PromQL a note suggests for it. */
  query: string;
}

const CADVISOR: Family["labels"] = [
  ["container", "container"],
  ["cpu", "cpu"],
  ["endpoint", "word"],
  ["id", "cgroup"],
  ["image", "image"],
  ["instance", "kubeletInstance"],
  ["job", "job"],
  ["metrics_path", "handler"],
  ["name", "containerId"],
  ["namespace", "namespace"],
  ["node", "node"],
  ["pod", "pod"],
  ["service", "service"],
];
const NODE: Family["labels"] = [
  ["instance", "nodeInstance"],
  ["job", "job"],
  ["node", "node"],
];
const KSM: Family["labels"] = [
  ["container", "container"],
  ["instance", "instance"],
  ["job", "job"],
  ["namespace", "namespace"],
  ["pod", "pod"],
  ["service", "service"],
  ["uid", "uid"],
];

export const FAMILIES: readonly Family[] = [
  {
    name: "node_memory_MemAvailable_bytes",
    labels: NODE,
    value: "bytes",
    query: "node_memory_MemAvailable_bytes",
  },
  {
    name: "node_cpu_seconds_total",
    labels: [["cpu", "cpu"], ...NODE, ["mode", "mode"]],
    value: "counter",
    query: 'rate(node_cpu_seconds_total{mode!="idle"}[5m])',
  },
  {
    name: undefined,
    labels: [
      ["cpu", "cpu"],
      ["instance", "nodeInstance"],
      ["mode", "mode"],
    ],
    value: "ratio",
    query: "rate(node_cpu_seconds_total[5m])",
  },
  {
    name: "node_filesystem_avail_bytes",
    labels: [["device", "device"], ["fstype", "fstype"], ...NODE, ["mountpoint", "mountpoint"]],
    value: "bytes",
    query: "node_filesystem_avail_bytes",
  },
  {
    name: "node_network_receive_bytes_total",
    labels: [["device", "device"], ...NODE],
    value: "counter",
    query: "rate(node_network_receive_bytes_total[5m])",
  },
  {
    name: "container_cpu_usage_seconds_total",
    labels: CADVISOR,
    value: "counter",
    query: "sum by (namespace) (rate(container_cpu_usage_seconds_total[5m]))",
  },
  {
    name: "container_memory_working_set_bytes",
    labels: CADVISOR,
    value: "bytes",
    query: 'container_memory_working_set_bytes{container!=""}',
  },
  {
    name: undefined,
    labels: [
      ["container", "container"],
      ["namespace", "namespace"],
      ["pod", "pod"],
    ],
    value: "rate",
    query: 'sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total{container!=""}[5m]))',
  },
  {
    name: "kube_pod_container_status_restarts_total",
    labels: KSM,
    value: "count",
    query: "increase(kube_pod_container_status_restarts_total[1h]) > 0",
  },
  {
    name: "kube_pod_status_phase",
    labels: [...KSM.filter(([key]) => key !== "container"), ["phase", "phase"]],
    value: "bool",
    query: 'kube_pod_status_phase{phase="Running"} == 0',
  },
  {
    name: "kube_pod_labels",
    labels: [
      ...KSM,
      ["label_app_kubernetes_io_name", "service"],
      ["label_team", "team"],
      ["label_owner", "unicode"],
      ["label_track", "word"],
    ],
    value: "bool",
    query: "kube_pod_labels",
  },
  {
    name: "http_requests_total",
    labels: [
      ["code", "code"],
      ["handler", "handler"],
      ["instance", "instance"],
      ["job", "job"],
      ["method", "method"],
      ["namespace", "namespace"],
      ["pod", "pod"],
    ],
    value: "counter",
    query: "sum by (code) (rate(http_requests_total[5m]))",
  },
  {
    name: "http_request_duration_seconds_bucket",
    labels: [
      ["handler", "handler"],
      ["instance", "instance"],
      ["job", "job"],
      ["le", "le"],
      ["method", "method"],
    ],
    value: "count",
    query: "histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))",
  },
  {
    name: undefined,
    labels: [
      ["namespace", "namespace"],
      ["service", "service"],
    ],
    value: "seconds",
    query:
      "histogram_quantile(0.99, sum by (le, namespace, service) (rate(http_request_duration_seconds_bucket[5m])))",
  },
  {
    name: "apiserver_request_total",
    labels: [
      ["code", "code"],
      ["component", "word"],
      ["group", "word"],
      ["instance", "instance"],
      ["job", "job"],
      ["resource", "resource"],
      ["scope", "word"],
      ["verb", "method"],
      ["version", "version"],
    ],
    value: "counter",
    query: "sum by (verb, code) (rate(apiserver_request_total[5m]))",
  },
  {
    name: "probe_http_status_code",
    labels: [
      ["instance", "url"],
      ["job", "job"],
      ["region", "region"],
      ["team", "team"],
    ],
    value: "count",
    query: "probe_http_status_code",
  },
  {
    name: "go_gc_duration_seconds",
    labels: [
      ["instance", "instance"],
      ["job", "job"],
      ["quantile", "quantile"],
    ],
    value: "seconds",
    query: "go_gc_duration_seconds",
  },
  {
    name: "up",
    labels: [
      ["instance", "instance"],
      ["job", "job"],
      ["namespace", "namespace"],
      ["pod", "pod"],
    ],
    value: "bool",
    query: "up == 0",
  },
  {
    name: "kube_deployment_status_replicas_available",
    labels: [
      ["deployment", "service"],
      ["namespace", "namespace"],
      ["team", "team"],
      ["region", "unicode"],
    ],
    value: "count",
    query: "kube_deployment_status_replicas_available",
  },
  {
    name: undefined,
    labels: [["instance", "nodeInstance"]],
    value: "percent",
    query: '100 * (1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m])))',
  },
];

type Labels = Record<string, string>;
type Point = [number, string];
export interface Series {
  metric: Labels;
  values: Point[];
}

function seriesLabels(src: Source, family: Family): Labels {
  const t = target(src);
  const labels: Labels = {};
  if (family.name !== undefined) labels.__name__ = family.name;
  for (const [key, kind] of family.labels) {
    // cAdvisor's cgroup-level series lack container labels now and then; keep the shapes varied.
    if (key !== "job" && chance(src, 0.04)) continue;
    labels[key] = labelValue(src, kind, t);
  }
  return labels;
}

/** Sample times: Unix seconds from a start, at a step, sometimes with fractions (`1700000360.5`, `.123`). */
function times(src: Source, count: number): number[] {
  const step = pick(src, [15, 30, 60, 60, 300, 3600]);
  const fraction = chance(src, 0.2) ? pick(src, [0.5, 0.25, 0.123, 0.875]) : 0;
  const start = 1_700_000_000 + src.int(0, 90_000) * 10 + fraction;
  return Array.from({ length: count }, (_, i) => start + i * step);
}

/** `count` series of one family with `points` samples each; the values of one series keep a level. */
export function makeSeries(
  src: Source,
  count: number,
  points: number,
  family = pick(src, FAMILIES),
): Series[] {
  const at = times(src, points);
  return Array.from({ length: count }, () => {
    const metric = seriesLabels(src, family);
    const base = level(src, family.value);
    return {
      metric,
      values: at.map((time, i) => [time, prometheusFloat(sample(src, family.value, base, i))]),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Shapes

/** A query answer as the server returns it (Prometheus's `data`), or as Prometheus sends it (`status`, `data`). */
export function vectorResult(series: readonly Series[], envelope = false) {
  const data = {
    resultType: "vector",
    result: series.map(({ metric, values }) => ({ metric, value: values[values.length - 1] })),
  };
  return envelope ? { status: "success", data } : data;
}

export function matrixResult(series: readonly Series[], envelope = false) {
  const data = { resultType: "matrix", result: series.map(({ metric, values }) => ({ metric, values })) };
  return envelope ? { status: "success", data } : data;
}

const tableNumber = (value: number): number | string =>
  Number.isFinite(value) ? rounded5(value) : prometheusFloat(value);

/** The labels every series shares, and each series' own. */
function splitLabels(series: readonly Series[]): { common: Labels; own: Labels[] } {
  const common: Labels = { ...(series[0]?.metric ?? {}) };
  for (const { metric } of series) {
    for (const key of Object.keys(common)) if (metric[key] !== common[key]) delete common[key];
  }
  const own = series.map(({ metric }) =>
    Object.fromEntries(Object.entries(metric).filter(([key]) => !(key in common))),
  );
  return { common, own };
}

/** The `series_stats` table of a cut result: a row per series, for a range or an instant query. */
export function seriesStats(series: readonly Series[], instant: boolean) {
  const { common, own } = splitLabels(series);
  if (instant) {
    return {
      common_labels: common,
      columns: ["labels", "value"],
      rows: series.map(({ values }, i) => [own[i], tableNumber(Number(values[values.length - 1]?.[1]))]),
    };
  }
  const rows = series.map(({ values }, i) => {
    const numbers = values.map(([, value]) => Number(value));
    const finite = numbers.filter(Number.isFinite);
    const min = finite.length ? Math.min(...finite) : Number.NaN;
    const max = finite.length ? Math.max(...finite) : Number.NaN;
    const avg = finite.length ? finite.reduce((sum, value) => sum + value, 0) / finite.length : Number.NaN;
    const maxAt = values.find(([, value]) => Number(value) === max)?.[0] ?? values[0]?.[0] ?? 0;
    return [
      own[i],
      tableNumber(min),
      tableNumber(max),
      tableNumber(avg),
      tableNumber(numbers[numbers.length - 1] ?? Number.NaN),
      values.length,
      maxAt,
    ];
  });
  return {
    common_labels: common,
    columns: ["labels", "min", "max", "avg", "last", "samples", "max_at"],
    rows,
  };
}

/** Points merged into buckets of `every` samples: each bucket's min and max, rounded to 5 significant digits. */
function downsampled(values: readonly Point[], every: number): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < values.length; i += every) {
    const bucket = values.slice(i, i + every);
    let low = bucket[0] as Point;
    let high = low;
    for (const point of bucket) {
      if (Number(point[1]) < Number(low[1])) low = point;
      if (Number(point[1]) > Number(high[1])) high = point;
    }
    const round = ([time, value]: Point): Point => [
      time,
      Number.isFinite(Number(value)) ? String(rounded5(Number(value))) : value,
    ];
    out.push(round(low));
    if (high !== low) out.push(round(high));
  }
  return out;
}

const count = (value: number) => value.toLocaleString("en-US");

/** The prose of a cut result's note. */
export function truncationNote(
  src: Source,
  series: number,
  points: number,
  bytes: number,
  family: Family,
): string {
  const kept = Math.min(series, src.int(3, 20));
  const megabytes = (bytes / 1e6).toFixed(1);
  const suggestions = [
    `aggregate, e.g. ${family.query}`,
    `use step=${pick(src, ["5m", "15m", "30m", "1h"])}, which fits`,
    `narrow the matchers, e.g. {namespace="${pick(src, Object.keys(NAMESPACES))}"}`,
    `ask for a shorter range, e.g. the last ${pick(src, ["1h", "6h", "12h"])}`,
  ].slice(0, src.int(1, 4));
  return `${count(series)} series (${count(points)} points, ${megabytes} MB) did not fit the ${count(
    pick(src, [20_000, 25_000, 10_000]),
  )}-token budget: series_stats has a row for every series, result has the ${kept} most unusual series with their points merged into ${pick(
    src,
    ["5m", "30m", "1h"],
  )} buckets. To see more: ${suggestions.join("; ")}.`;
}

/** A cut result: `truncated` (note, totals), the `series_stats` table, the most unusual series downsampled. */
export function cutResult(src: Source, series: readonly Series[], family: Family, instant: boolean) {
  const points = series.reduce((sum, { values }) => sum + values.length, 0);
  const bytes = JSON.stringify(series).length + 40;
  const kept = series.slice(0, Math.min(series.length, src.int(3, 12)));
  const every = Math.max(1, Math.ceil((series[0]?.values.length ?? 1) / src.int(10, 40)));
  const result = instant
    ? kept.map(({ metric, values }) => ({ metric, value: values[values.length - 1] }))
    : kept.map(({ metric, values }) => ({ metric, values: downsampled(values, every) }));
  const returnedPoints = instant
    ? kept.length
    : result.reduce((sum, r) => sum + ("values" in r ? r.values.length : 1), 0);
  return {
    truncated: {
      note: truncationNote(src, series.length, points, bytes, family),
      cut_by: "size",
      total: { series: series.length, points, bytes },
      returned: { series: kept.length, points: returnedPoints, rows: series.length },
      order: "unusual",
      ...(instant
        ? {}
        : { downsampled: { asked_step_seconds: 60, returned_step_seconds: 60 * every, method: "min_max" } }),
    },
    resultType: instant ? "vector" : "matrix",
    result,
    series_stats: seriesStats(series, instant),
  };
}

/** A time as the server writes it (besides Prometheus's own pairs): RFC 3339 UTC, a fraction only when not whole. */
export function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(".000Z", "Z");
}

/** The differing label names of `series`, in first-seen order: the lean table's label columns. */
function labelColumns(own: readonly Labels[]): string[] {
  const names: string[] = [];
  for (const labels of own)
    for (const name of Object.keys(labels)) if (!names.includes(name)) names.push(name);
  return names;
}

/** The lean `series_stats` of the compact form: label columns, `same`, RFC 3339 times, change columns. */
export function leanSeriesStats(src: Source, series: readonly Series[], instant: boolean) {
  const { common, own } = splitLabels(series);
  const columns = labelColumns(own);
  const cells = (i: number) => columns.map((name) => own[i]?.[name] ?? null);
  if (instant) {
    const time = series[0]?.values.at(-1)?.[0] ?? 0;
    return {
      time: rfc3339(time),
      common_labels: common,
      columns: [...columns, "value"],
      rows: series.map(({ values }, i) => [...cells(i), tableNumber(Number(values.at(-1)?.[1]))]),
    };
  }
  const rows = series.map(({ values }, i) => {
    const numbers = values.map(([, value]) => Number(value));
    const finite = numbers.filter(Number.isFinite);
    const min = finite.length ? Math.min(...finite) : Number.NaN;
    const max = finite.length ? Math.max(...finite) : Number.NaN;
    const avg = finite.length ? finite.reduce((sum, value) => sum + value, 0) / finite.length : Number.NaN;
    const maxAt = values.find(([, value]) => Number(value) === max)?.[0] ?? values[0]?.[0] ?? 0;
    // Some series changed (a step somewhere in the window), most did not.
    const at = chance(src, 0.3) && values.length > 2 ? values[src.int(1, values.length - 1)] : undefined;
    const change =
      at === undefined ? [null, null, null] : [rfc3339(at[0]), tableNumber(min), tableNumber(max)];
    return [
      ...cells(i),
      tableNumber(min),
      tableNumber(max),
      tableNumber(avg),
      tableNumber(numbers.at(-1) ?? Number.NaN),
      rfc3339(maxAt),
      ...change,
    ];
  });
  return {
    common_labels: common,
    columns: [...columns, "min", "max", "avg", "last", "max_at", "changed_at", "before", "after"],
    same: { samples: series[0]?.values.length ?? 0 },
    rows,
  };
}

/** A compact curve: a value per step from the range's start (rounded), null for a gap, `[first, second]` for a bucket. */
function compactValues(src: Source, values: readonly Point[], every: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < values.length; i += every) {
    const bucket = values.slice(i, i + every).map(([, value]) => tableNumber(Number(value)));
    const low = bucket.reduce((a, b) => (Number(b) < Number(a) ? b : a));
    const high = bucket.reduce((a, b) => (Number(b) > Number(a) ? b : a));
    if (chance(src, 0.03)) out.push(null);
    else out.push(low === high ? low : [low, high]);
  }
  return out;
}

/** A range answer in the compact form: the range once, curves on its steps, the lean table (more than one series). */
export function compactRangeResult(src: Source, series: readonly Series[], every = 1) {
  const first = series[0]?.values ?? [];
  const step = ((first[1]?.[0] ?? 60) - (first[0]?.[0] ?? 0)) * every;
  return {
    resultType: "matrix",
    range: {
      start: rfc3339(first[0]?.[0] ?? 0),
      end: rfc3339(first.at(-1)?.[0] ?? 0),
      step_seconds: step,
    },
    result: series.map(({ metric, values }) => ({ metric, values: compactValues(src, values, every) })),
    ...(series.length > 1 ? { series_stats: leanSeriesStats(src, series, false) } : {}),
  };
}

/** A cut answer in the compact form: `truncated`, the range, the most unusual curves downsampled, the lean table. */
export function cutCompactResult(src: Source, series: readonly Series[], family: Family) {
  const points = series.reduce((sum, { values }) => sum + values.length, 0);
  const bytes = JSON.stringify(series).length + 40;
  const kept = series.slice(0, Math.min(series.length, src.int(3, 12)));
  const every = Math.max(1, Math.ceil((series[0]?.values.length ?? 1) / src.int(10, 40)));
  const { result, range } = compactRangeResult(src, kept, every);
  const step = range.step_seconds / every;
  return {
    truncated: {
      note: truncationNote(src, series.length, points, bytes, family),
      cut_by: "size",
      total: { series: series.length, points, bytes },
      returned: { series: kept.length, points: Math.ceil(points / every), rows: series.length },
      order: "unusual",
      downsampled: { asked_step_seconds: step, returned_step_seconds: step * every, method: "min_max" },
      significant_digits: 5,
    },
    resultType: "matrix",
    range,
    result,
    series_stats: leanSeriesStats(src, series, false),
  };
}

// ---------------------------------------------------------------------------------------------
// Metric names

const KNOWN_METRICS = [
  "up",
  "scrape_duration_seconds",
  "scrape_samples_scraped",
  "node_cpu_seconds_total",
  "node_memory_MemAvailable_bytes",
  "node_memory_MemTotal_bytes",
  "node_memory_Buffers_bytes",
  "node_memory_Cached_bytes",
  "node_filesystem_avail_bytes",
  "node_filesystem_size_bytes",
  "node_disk_read_bytes_total",
  "node_disk_io_time_seconds_total",
  "node_network_receive_bytes_total",
  "node_network_transmit_drop_total",
  "node_load1",
  "node_load15",
  "node_boot_time_seconds",
  "node_vmstat_pgmajfault",
  "node_nf_conntrack_entries",
  "node_timex_offset_seconds",
  "container_cpu_usage_seconds_total",
  "container_cpu_cfs_throttled_periods_total",
  "container_memory_working_set_bytes",
  "container_memory_rss",
  "container_network_receive_bytes_total",
  "container_fs_writes_bytes_total",
  "container_oom_events_total",
  "container_spec_memory_limit_bytes",
  "kube_pod_status_phase",
  "kube_pod_container_status_restarts_total",
  "kube_pod_container_resource_requests",
  "kube_deployment_status_replicas_available",
  "kube_node_status_condition",
  "kube_node_status_allocatable",
  "kube_horizontalpodautoscaler_status_current_replicas",
  "kube_persistentvolumeclaim_status_phase",
  "kube_job_status_failed",
  "kubelet_volume_stats_available_bytes",
  "kubelet_running_pods",
  "kubelet_pleg_relist_duration_seconds_bucket",
  "apiserver_request_total",
  "apiserver_request_duration_seconds_bucket",
  "apiserver_current_inflight_requests",
  "etcd_request_duration_seconds_bucket",
  "etcd_mvcc_db_total_size_in_bytes",
  "workqueue_depth",
  "workqueue_adds_total",
  "rest_client_requests_total",
  "coredns_dns_requests_total",
  "coredns_cache_hits_total",
  "go_goroutines",
  "go_gc_duration_seconds",
  "go_memstats_heap_alloc_bytes",
  "go_threads",
  "process_cpu_seconds_total",
  "process_resident_memory_bytes",
  "process_open_fds",
  "http_requests_total",
  "http_request_duration_seconds_bucket",
  "http_server_requests_seconds_count",
  "grpc_server_handled_total",
  "grpc_server_handling_seconds_bucket",
  "nginx_ingress_controller_requests",
  "nginx_ingress_controller_request_duration_seconds_bucket",
  "istio_requests_total",
  "istio_request_duration_milliseconds_bucket",
  "envoy_cluster_upstream_rq_total",
  "prometheus_tsdb_head_series",
  "prometheus_remote_storage_samples_pending",
  "alertmanager_notifications_failed_total",
  "probe_success",
  "probe_http_duration_seconds",
  "aws_ebs_csi_api_request_duration_seconds_bucket",
  "karpenter_nodes_allocatable",
  "argocd_app_sync_total",
  "certmanager_certificate_expiration_timestamp_seconds",
];
const PREFIXES = [
  "node",
  "container",
  "kube",
  "kubelet",
  "apiserver",
  "etcd",
  "go",
  "process",
  "http",
  "grpc",
  "prometheus",
  "coredns",
  "rest_client",
  "workqueue",
  "scheduler",
  "nginx_ingress_controller",
  "istio",
  "envoy_cluster",
  "jvm",
  "hikaricp",
  "redis",
  "pg_stat",
  "kafka_consumergroup",
  "payments_api",
  "checkout",
];
const SUBJECTS = [
  "request",
  "requests",
  "memory",
  "cpu",
  "disk_io",
  "network",
  "connections",
  "queue",
  "cache",
  "gc_pause",
  "heap",
  "threads",
  "sessions",
  "replicas",
  "pod_container",
  "volume_stats",
  "upstream_rq",
  "db_transactions",
  "lag",
  "handler",
  "storage_operation",
  "evictions",
];
const UNITS = [
  "bytes",
  "seconds",
  "total",
  "ratio",
  "count",
  "sum",
  "bucket",
  "info",
  "errors_total",
  "duration_seconds",
];

/** A plausible metric name (prefix, subject, sometimes a qualifier, unit). */
export function metricName(src: Source): string {
  // Most names in a workspace come from the standard exporters; the rest from applications.
  if (chance(src, 0.6)) return pick(src, KNOWN_METRICS);
  const qualifier = chance(src, 0.4)
    ? `_${pick(src, ["current", "max", "inflight", "failed", "read", "written", "active", "pending"])}`
    : "";
  return `${pick(src, PREFIXES)}_${pick(src, SUBJECTS)}${qualifier}_${pick(src, UNITS)}`;
}

/** `{"metrics":[…]}`: sorted, unique names. */
export function metricList(src: Source, size: number) {
  const names = new Set<string>();
  for (let i = 0; i < size * 4 && names.size < size; i++) names.add(metricName(src));
  return { metrics: [...names].sort() };
}

// ---------------------------------------------------------------------------------------------
// Prose

const SENTENCES = [
  "Runs a PromQL instant query against Amazon Managed Service for Prometheus and returns the value of every matching series at one time.",
  "Runs a PromQL range query and returns each matching series' samples between start and end at the given step.",
  "Times are RFC 3339 or Unix seconds; relative times such as now-1h are accepted.",
  "Large results are cut to fit the response budget: the note says what was cut and how to ask for the rest.",
  "Use ListMetrics first when you do not know the metric name, then GetLabelValues to find the values of a label.",
  "The step must be at least the scrape interval, usually 15s or 30s; a longer step returns fewer points.",
  "An instant query sees only series with a sample in the 5 minutes before its time, so for older data pass an earlier time.",
  "Aggregate before you ask for many series: sum by (namespace) (rate(container_cpu_usage_seconds_total[5m])) returns one series per namespace.",
  "Counters only ever go up, except when the process restarts; always wrap them in rate() or increase() before comparing.",
  "Histograms are exposed as _bucket series with an le label; use histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m]))) for a percentile.",
  "The workspace is chosen by the server's configuration; you cannot query another account's data.",
  'Returns the names of all metrics in the workspace, optionally only those matching a selector such as {job="node-exporter"}.',
  "If the query times out, narrow the label matchers, shorten the range or use a longer step.",
  'Values are strings because JSON has no NaN or Inf: "NaN", "+Inf" and "-Inf" appear as written.',
  "The limit argument caps the number of series returned; the total is still reported so you know how many there were.",
  "Label values are case sensitive and may contain any Unicode text; use =~ for regular expressions and !~ to exclude.",
  "When a pod restarts, its name keeps the ReplicaSet hash but the suffix changes, so a new series appears.",
  "Memory is reported in bytes: divide by 1024^3 for GiB when you explain it to the user.",
  "The series_stats table has one row per series with its minimum, maximum, average and last value, and when the maximum happened.",
  "No series matched: check the metric name with ListMetrics and the label matchers, or widen the time range (an earlier start).",
  "Server info lists the workspace, the region, the authentication mode, the server time and the token budget of each result.",
  'Error rates are usually computed as sum(rate(http_requests_total{code=~"5.."}[5m])) / sum(rate(http_requests_total[5m])).',
];

/** A paragraph or a few of English tool documentation and notes. */
export function prose(src: Source, sentences: number): string {
  let text = "";
  for (let i = 0; i < sentences; i++) {
    text += pick(src, SENTENCES);
    text += i === sentences - 1 ? "" : chance(src, 0.2) ? "\n\n" : " ";
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Texts

export const TEXT_KINDS = [
  "vector",
  "matrix",
  "stats-range",
  "stats-instant",
  "cut",
  "compact-matrix",
  "stats-lean-range",
  "stats-lean-instant",
  "cut-compact",
  "metrics",
  "prose",
] as const;
export type TextKind = (typeof TEXT_KINDS)[number];

export interface ResultText {
  kind: TextKind;
  /** `JSON.stringify(value, null, 2)` rather than compact; prose is never indented. */
  indented: boolean;
  text: string;
}

/** Sizes of one text of a kind: series and points for results, names for lists (4 a series), sentences for prose (1 a series). */
export interface TextSize {
  series: number;
  points: number;
}

/** One text of a kind, drawn from `src`, of one metric family (an index into FAMILIES; drawn if not given). */
export function resultText(
  src: Source,
  kind: TextKind,
  indented: boolean,
  size: TextSize,
  family: Family = pick(src, FAMILIES),
): ResultText {
  const render = (value: unknown) => (indented ? JSON.stringify(value, null, 2) : JSON.stringify(value));
  const text = (value: unknown): ResultText => ({ kind, indented, text: render(value) });
  switch (kind) {
    case "vector":
      return text(vectorResult(makeSeries(src, size.series, 1, family), chance(src, 0.3)));
    case "matrix":
      return text(matrixResult(makeSeries(src, size.series, size.points, family), chance(src, 0.3)));
    case "stats-range":
      return text({ series_stats: seriesStats(makeSeries(src, size.series, size.points, family), false) });
    case "stats-instant":
      return text({ series_stats: seriesStats(makeSeries(src, size.series, 1, family), true) });
    case "cut": {
      const instant = chance(src, 0.25);
      const series = makeSeries(src, size.series, instant ? 1 : size.points, family);
      return text(cutResult(src, series, family, instant));
    }
    case "compact-matrix":
      return text(compactRangeResult(src, makeSeries(src, size.series, size.points, family)));
    case "stats-lean-range":
      return text({
        series_stats: leanSeriesStats(src, makeSeries(src, size.series, size.points, family), false),
      });
    case "stats-lean-instant":
      return text({ series_stats: leanSeriesStats(src, makeSeries(src, size.series, 1, family), true) });
    case "cut-compact":
      return text(cutCompactResult(src, makeSeries(src, size.series, size.points, family), family));
    case "metrics":
      return text(metricList(src, size.series * 4));
    case "prose":
      return { kind, indented: false, text: prose(src, size.series) };
  }
}

/**
 * A text of about `chars` characters: a trial of a few series measures one series of the family drawn,
 * then as many series are made as fill `chars`.
 */
export function textOfAbout(src: Source, kind: TextKind, indented: boolean, chars: number): ResultText {
  const family = pick(src, FAMILIES);
  const points = pick(src, [30, 60, 121, 240, 241]);
  const trial = resultText(src, kind, indented, { series: 4, points }, family).text.length / 4;
  const series = Math.max(1, Math.round(chars / trial));
  return resultText(src, kind, indented, { series, points }, family);
}

/** The corpus' sizes in characters: from a few hundred tokens to about 60,000 (a compact matrix's 2.3 characters a token). */
export const CORPUS_CHARS = [1_000, 3_000, 10_000, 30_000, 80_000, 140_000] as const;

/** The deterministic corpus: every kind at every size, compact and indented (prose once), for each seed. */
export function resultCorpus(seeds: readonly number[] = [1]): ResultText[] {
  const texts: ResultText[] = [];
  for (const seed of seeds) {
    for (const [k, kind] of TEXT_KINDS.entries()) {
      for (const [i, chars] of CORPUS_CHARS.entries()) {
        for (const indented of kind === "prose" ? [false] : [false, true]) {
          const src = seededSource(seed * 10_000 + k * 100 + i * 10 + (indented ? 1 : 0));
          texts.push(textOfAbout(src, kind, indented, chars));
        }
      }
    }
  }
  return texts;
}

/** What {@link resultTextArbitrary} draws. */
export interface ArbitraryOptions {
  kinds?: readonly TextKind[];
  /** Always indented (true), never (false), or either (undefined). */
  indented?: boolean | undefined;
  /** The most series (of a family drawn at random; names: 4 a series, sentences: 1). */
  maxSeries?: number;
  maxPoints?: number;
}

/**
 * Random texts of the kinds asked (every kind by default), compact or indented, at modest sizes (for
 * properties that run both tokenizers): random families, pod hashes, ids, values and timestamps.
 */
export function resultTextArbitrary(options: ArbitraryOptions = {}): fc.Arbitrary<ResultText> {
  const { kinds = TEXT_KINDS, indented, maxSeries = 8, maxPoints = 40 } = options;
  return fc
    .tuple(
      fc.constantFrom(...kinds),
      indented === undefined ? fc.boolean() : fc.constant(indented),
      fc.integer({ min: 1, max: maxSeries }),
      fc.gen(),
    )
    .map(([kind, indented, series, g]) => {
      const src = genSource(g);
      return resultText(src, kind, indented, { series, points: src.int(1, maxPoints) });
    });
}

/** Random label values of the kinds that tokenize worst: pod hashes, hex ids, UUIDs, IPs, paths, unicode. */
export const labelValueArbitrary: fc.Arbitrary<string> = fc.gen().map((g) => {
  const src = genSource(g);
  const t = target(src);
  const kinds: LabelKind[] = [
    "pod",
    "node",
    "instance",
    "uid",
    "containerId",
    "cgroup",
    "image",
    "url",
    "unicode",
  ];
  return labelValue(src, pick(src, kinds), t);
});
