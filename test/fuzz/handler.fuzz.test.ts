import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { type FakeSecrets, startFakeSecrets } from "../support/fakeSecrets.js";
import { type Handler, makeHandler } from "../support/handler.js";
import { refusedUrl } from "../support/net.js";
import { type FuzzConfig, formatReport, fuzz } from "./harness.js";
import { ODD_SECRET_MARKER } from "./oracle.js";
import { type FuzzUpstream, startFuzzUpstream } from "./upstream.js";

/**
 * The whole handler under fast-check (as Middy keeps `index.fuzz.js` beside its code): every event
 * shape, hostile values, random JSON-RPC (ids beyond 2^53 among them), random remaining time, four
 * configurations, the memory and the DynamoDB session store. Invariants: test/fuzz/oracle.ts.
 *
 * The fourth configuration's Prometheus and Alertmanager are hostile (test/fuzz/hostileUpstream.ts):
 * answers nested thousands deep, label sets of thousands of labels and values of 200 KB, answers cut
 * short (cleanly or by a dropped connection), and answers that never end (a slow drip, a complete answer
 * never closed, an endless flood); every tool call must still be answered in time, without a fault.
 * The other configurations reach it too, as the workspace `ws-fuzz-hostile`. It also sends answers at
 * PlotRangeQuery's point cap, legends of 100,000-character labels and timestamps no Date holds.
 *
 * The last three configurations read a bearer token from Secrets Manager (its SigV4-checking fake)
 * holding a byte an HTTP header cannot carry, or one RFC 6750 does not allow: no answer and no log line
 * may carry it (oracle: ODD_SECRET_MARKER), and no call may fault.
 *
 * `npm test` runs FUZZ_RUNS=20000 cases, about 24,000 events (fixed seeds, printed); `npm run fuzz`
 * runs 100,000 cases.
 * FUZZ_SEED=<n> changes the seeds (config i uses n + i); FUZZ_CONFIG=<name> runs one configuration;
 * FUZZ_SEED with FUZZ_PATH (both printed with every finding) replays one event of FUZZ_CONFIG.
 */

const TOTAL_RUNS = Number(process.env.FUZZ_RUNS ?? 20_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_728);
const ONLY = process.env.FUZZ_CONFIG;
const REPLAY_PATH = process.env.FUZZ_PATH;
const REGION = "us-east-1";

interface Planned {
  config: (deps: Dependencies) => FuzzConfig;
  /** Share of TOTAL_RUNS. */
  share: number;
}

interface Dependencies {
  upstream: FuzzUpstream;
  dynalite: Dynalite;
  refused: string;
  secrets: FakeSecrets;
}

const LOGS = { LOG_LEVEL: "INFO", AWS_REGION: REGION };

/**
 * Tokens no `Authorization` header may carry as they are: a NUL, a character beyond Latin-1 (fetch
 * refuses both, quoting the header), and a Latin-1 letter fetch sends but RFC 6750 does not allow.
 * Each begins with the marker the oracle looks for.
 */
const ODD_SECRETS = {
  nul: `${ODD_SECRET_MARKER}-a1\u0000b2`,
  "beyond-latin1": `${ODD_SECRET_MARKER}-c3\u20acd4`,
  latin1: `${ODD_SECRET_MARKER}-e5\u00e9f6`,
} as const;

function oddSecretPlan(kind: keyof typeof ODD_SECRETS, share: number): Planned {
  return {
    share,
    config: ({ upstream, secrets }) => {
      const arn = `arn:aws:secretsmanager:${REGION}:123456789012:secret:fuzz-odd-${kind}-AbCdEf`;
      secrets.set(arn, ODD_SECRETS[kind]);
      return {
        name: `odd-secret-${kind}`,
        pythonCompat: false,
        sessions: "optional",
        toolCallShare: 0.5,
        env: {
          ...LOGS,
          PROMETHEUS_URL: upstream.prometheusUrl,
          PROMETHEUS_AUTH: "bearer",
          PROMETHEUS_SECRET: arn,
          ALERTMANAGER_URL: `${upstream.hostile.url}/alertmanager`,
          AMP_ENDPOINT: upstream.ampUrl,
        },
      };
    },
  };
}

const PLANS: Planned[] = [
  {
    share: 0.345,
    config: ({ upstream }) => ({
      name: "default",
      pythonCompat: false,
      sessions: "optional",
      env: { ...LOGS, PROMETHEUS_URL: upstream.prometheusUrl, AMP_ENDPOINT: upstream.ampUrl },
    }),
  },
  {
    share: 0.275,
    config: ({ upstream, dynalite }) => ({
      name: "compat-required-dynamodb",
      pythonCompat: true,
      sessions: "required",
      env: {
        ...LOGS,
        PYTHON_COMPAT: "true",
        SESSIONS: "required",
        MAX_BODY_BYTES: "4096",
        SESSION_TABLE: dynalite.tableName,
        DYNAMODB_ENDPOINT: dynalite.endpoint,
        AMP_ENDPOINT: upstream.ampUrl,
      },
    }),
  },
  {
    share: 0.25,
    config: ({ upstream, refused }) => ({
      name: "sessions-off-any-origin",
      pythonCompat: false,
      sessions: "off",
      env: {
        ...LOGS,
        SESSIONS: "off",
        ALLOWED_ORIGINS: "*",
        PROMETHEUS_URL: refused,
        PROMETHEUS_AUTH: "none",
        AMP_ENDPOINT: upstream.ampUrl,
        AWS_LAMBDA_FUNCTION_NAME: "prometheus-mcp-lambda-fuzz",
      },
    }),
  },
  {
    share: 0.1,
    config: ({ upstream }) => ({
      name: "hostile-upstream",
      pythonCompat: false,
      sessions: "optional",
      toolCallShare: 0.5,
      env: {
        ...LOGS,
        PROMETHEUS_URL: upstream.hostile.url,
        PROMETHEUS_AUTH: "none",
        ALERTMANAGER_URL: `${upstream.hostile.url}/alertmanager`,
        AMP_ENDPOINT: upstream.ampUrl,
      },
    }),
  },
  oddSecretPlan("nul", 0.01),
  oddSecretPlan("beyond-latin1", 0.01),
  oddSecretPlan("latin1", 0.01),
];

/**
 * Per case, the test's bound: a generous one, not a figure. Most cases take a few ms, a few wait on
 * timeouts and retries; the hostile configuration's took 110 ms on average on two busy shared cores
 * (40 ms a case ended it there, and it ran on into the next configurations' logs). Each event has its
 * own bound (its remaining time plus HANG_GRACE_MS): this one only ends a run that stalls as a whole.
 */
const MS_PER_CASE_BUDGET = 250;

describe("fuzz: the whole handler", () => {
  let dependencies: Dependencies;

  const savedSecretsEndpoint = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;

  beforeAll(async () => {
    const upstream = await startFuzzUpstream(REGION);
    const dynalite = await startDynalite();
    const secrets = await startFakeSecrets(REGION);
    // The SDK's own setting: the function's Secrets Manager client reads the fake.
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secrets.url;
    dependencies = { upstream, dynalite, refused: await refusedUrl(), secrets };
  });

  afterAll(async () => {
    if (savedSecretsEndpoint === undefined) delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    else process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = savedSecretsEndpoint;
    await dependencies?.upstream.close();
    await dependencies?.dynalite.close();
    await dependencies?.secrets.close();
  });

  PLANS.forEach((plan, index) => {
    const runs = Math.max(1, Math.round(TOTAL_RUNS * plan.share));
    const seed = SEED + index;
    it(
      `configuration ${index + 1}: ${runs} cases (one event, or two to four at once) keep every invariant (seed ${seed})`,
      async () => {
        const config = plan.config(dependencies);
        if (ONLY !== undefined && ONLY !== config.name) {
          console.log(`fuzz ${config.name}: not selected (FUZZ_CONFIG=${ONLY})`);
          return;
        }
        const handler: Handler = makeHandler(config.env);
        const report = await fuzz(handler, config, {
          runs: REPLAY_PATH === undefined ? runs : 1,
          seed,
          ...(REPLAY_PATH === undefined ? {} : { path: REPLAY_PATH }),
        });
        const replay = `FUZZ_CONFIG=${config.name} FUZZ_SEED=${SEED}`;
        console.log(formatReport(report, replay));
        console.log(
          `  hostile upstream's answers so far: ${JSON.stringify(dependencies.upstream.hostile.answered)}`,
        );
        expect(report.findings.map((finding) => finding.problem)).toStrictEqual([]);
      },
      runs * MS_PER_CASE_BUDGET + 120_000,
    );
  });
});
