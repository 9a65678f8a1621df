import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generous: e2e tests spawn the binary many times, and a loaded 2-core machine is slow.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores on CI: more workers only contend for git and SQLite.
    maxWorkers: 2,
  },
});
