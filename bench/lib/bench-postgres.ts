import { startEmbeddedPostgres, type TEmbeddedDatabase } from "../../lib/db/embedded";

/**
 * The Postgres server a benchmark runs against: DATABASE_URL's, or else a throwaway embedded
 * cluster with its data in `dataDir`, on EMBEDDED_BENCH_PG_PORT or `port`. `cluster` is the one
 * started, for the caller to stop; null on DATABASE_URL's server.
 */
export async function benchPostgresServer(dataDir: string, port: number): Promise<{ url: string; cluster: TEmbeddedDatabase | null }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, cluster: null };
  const cluster = await startEmbeddedPostgres({ dataDir, port: Number(process.env.EMBEDDED_BENCH_PG_PORT ?? port), ephemeral: true });
  return { url: cluster.adminUrl, cluster };
}
