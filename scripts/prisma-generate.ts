import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

// `prisma generate` insists on a schema-engine binary path but never runs it; the CLI would
// otherwise try to download one, which fails on machines without internet access.
const require = createRequire(import.meta.url);
const cli = require.resolve("prisma/build/index.js");
const result = spawnSync(process.execPath, [cli, "generate", "--schema", "prisma/schema.prisma"], {
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
process.exit(result.status ?? 1);
