import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    // Tests spawn real git processes; generous per-test time keeps a loaded CI machine from flaking.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
