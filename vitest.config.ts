import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      AWS_EC2_METADATA_DISABLED: "true",
      AWS_ACCESS_KEY_ID: "AKIDTESTFAKE",
      AWS_SECRET_ACCESS_KEY: "test-secret-not-real",
      AWS_SESSION_TOKEN: "",
      AWS_PROFILE: "",
      POWERTOOLS_DEV: "",
      LOG_LEVEL: "SILENT",
    },
  },
});
