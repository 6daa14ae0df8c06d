import { startClickHouseShim } from "../../test/support/clickhouse-shim";

// `tsx bench/scale/clickhouse-server.ts <chdb data directory>`: the embedded engine behind the
// tests' HTTP shim in a process of its own, standing in for a ClickHouse server (there is none on
// this machine). Prints `{"url": …}` once listening; exits when its stdin closes (the parent
// ended, however it ended) or on SIGTERM, closing the engine so its parts are flushed.

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error("usage: tsx bench/scale/clickhouse-server.ts <chdb data directory>");
  const shim = await startClickHouseShim({ path: dir });
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    shim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.stdin.on("end", close);
  process.stdin.on("error", close);
  process.stdin.resume();
  process.on("SIGTERM", close);
  process.on("SIGINT", close);
  process.stdout.write(`${JSON.stringify({ url: shim.url })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`clickhouse-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
