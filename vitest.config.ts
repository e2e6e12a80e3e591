import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Builds dist/ once when the CLI end-to-end tests are part of the run (they spawn dist/cli/main.js).
    globalSetup: ["test/global-setup.ts"],
    // Temporary files of every test go to the run's own folder (test/global-setup.ts removes it).
    setupFiles: ["test/run-tmp.ts"],
  },
});
