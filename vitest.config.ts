import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./", import.meta.url)),
      "server-only": fileURLToPath(new URL("./test/support/server-only-stub.ts", import.meta.url)),
    },
  },
  test: {
    include: [
      "router-core/**/*.test.ts",
      "lib/**/*.test.ts",
      "scripts/**/*.test.ts",
      "bench/**/*.test.ts",
      "test/**/*.test.ts",
      "client/test/**/*.test.ts",
      "examples/**/*.test.ts",
    ],
    environment: "node",
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
