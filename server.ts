import { bootSwitchyard } from "./lib/server";

const dev = process.argv.includes("--dev");
const embedded = !process.env.DATABASE_URL;

async function main() {
  const log = (line: string) => process.stdout.write(`switchyard: ${line}\n`);
  const running = await bootSwitchyard({
    dev,
    port: Number(process.env.PORT ?? 3000),
    // The embedded-database demo listens on loopback only; a real deployment sets HOST.
    host: process.env.HOST ?? (embedded ? "127.0.0.1" : "0.0.0.0"),
    dir: process.cwd(),
    // A production start (DATABASE_URL) begins empty: teams describe their own providers. Demo data only when asked.
    seed: embedded ? process.env.SWITCHYARD_SEED_DEMO !== "0" : process.env.SWITCHYARD_SEED_DEMO === "1",
    log,
  });
  log(`ready on ${running.url} (${dev ? "development" : "production"}, ${embedded ? "embedded PostgreSQL" : "DATABASE_URL"})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    await running.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err: unknown) => {
  process.stderr.write(`switchyard: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
