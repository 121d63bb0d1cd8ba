import { defineConfig } from "vitest/config";

const env = {
  AWS_EC2_METADATA_DISABLED: "true",
  AWS_ACCESS_KEY_ID: "AKIDTESTFAKE",
  AWS_SECRET_ACCESS_KEY: "test-secret-not-real",
  AWS_SESSION_TOKEN: "",
  AWS_PROFILE: "",
  POWERTOOLS_DEV: "",
  LOG_LEVEL: "SILENT",
};

export default defineConfig({
  test: {
    // Two test files at once (vitest's default is cores - 1, one file at a time on CI's two cores):
    // the slow files mostly wait on child processes (osls, Prometheus, browsers, the fuzz's stores).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // No test credential in any process output (test/support/secretScan.ts).
    setupFiles: ["test/support/secretScan.ts"],
    projects: [
      { extends: true, test: { name: "all", include: ["test/**/*.test.ts"], env } },
      // The contract suite again, against the streaming entry (src/lambda/streaming.ts): the same answers,
      // read back as a streaming front door frames them (test/support/handler.ts).
      {
        extends: true,
        test: {
          name: "contract, streaming entry",
          include: ["test/contract/**/*.test.ts"],
          env: { ...env, CONTRACT_ENTRY: "streaming" },
        },
      },
    ],
  },
});
