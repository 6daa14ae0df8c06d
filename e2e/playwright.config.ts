import { defineConfig, devices } from "@playwright/test";

// Run through `npm run test:e2e` (scripts/e2e.ts), which starts Switchyard on a fresh
// database and passes its address in E2E_BASE_URL.
export default defineConfig({
  testDir: ".",
  testMatch: "**/*.spec.ts",
  outputDir: "output/test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["./support/failure-summary.ts"]],
  // Every console page in both themes, after the journeys, as CI artifacts (e2e/output/screenshots/pages).
  globalTeardown: "./support/page-screenshots.ts",
  use: {
    baseURL: process.env.E2E_BASE_URL ?? "http://127.0.0.1:3000",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    ...devices["Desktop Chrome"],
    launchOptions: {
      // Debian's Chromium: Playwright's own browser download cannot work on these machines.
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
      ],
    },
  },
});
