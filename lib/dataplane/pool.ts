import pg from "pg";

/**
 * A pg.Pool whose clients never crash the process when the server ends their session.
 *
 * pg-pool listens for 'error' only on idle clients and removes that listener at checkout. A
 * checked-out client between two statements (a transaction, a replay batch, partition
 * maintenance) that receives Postgres's FATAL on shutdown (57P01) or a reset therefore emitted
 * an unhandled 'error' event and killed the instance at the start of a database outage, instead
 * of letting it spool. With a listener on every client the error surfaces where it belongs: the
 * client's next query fails (the callers treat that as "Postgres unavailable") and release()
 * drops the broken client.
 */
export function createPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  return pool;
}
