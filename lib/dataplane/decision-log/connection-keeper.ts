import type pg from "pg";

/**
 * The connections the writer keeps between its transactions (at most `keep`, one per transaction
 * in flight). Taking one from the pool for every batch cost a process.nextTick, which runs only
 * once every answer the last commit released has been written, so the next batch left late while
 * Postgres sat idle. Each connection out of the pool keeps an error listener that marks it broken
 * if its session fails while it waits.
 */
export function createConnectionKeeper(pool: pg.Pool, keep: number) {
  const spare: pg.PoolClient[] = [];
  const taken = new Map<pg.PoolClient, { broken: boolean; onError: () => void }>();
  let closed = false;

  const isBroken = (client: pg.PoolClient) => taken.get(client)?.broken === true;

  function giveBack(client: pg.PoolClient, broken: boolean): void {
    const state = taken.get(client);
    if (state) client.off("error", state.onError);
    taken.delete(client);
    client.release(broken);
  }

  return {
    isBroken,

    /** A spare connection that is still usable (broken ones go back to the pool to be closed). */
    spare(): pg.PoolClient | undefined {
      for (let c = spare.pop(); c !== undefined; c = spare.pop()) {
        if (!isBroken(c)) return c;
        giveBack(c, true);
      }
      return undefined;
    },

    /** A new connection from the pool; an error of its session while it waits marks it broken. */
    async connect(): Promise<pg.PoolClient> {
      const client = await pool.connect();
      const state = { broken: false, onError: () => (state.broken = true) };
      client.on("error", state.onError);
      taken.set(client, state);
      return client;
    },

    /** Keeps a connection after its transaction, or gives it back (broken, closing, or enough kept). */
    release(client: pg.PoolClient, broken: boolean): void {
      if (broken || closed || spare.length >= keep) giveBack(client, broken);
      else spare.push(client);
    },

    /** Gives every kept connection back; later releases give theirs back too. */
    close(): void {
      closed = true;
      for (const c of spare.splice(0)) giveBack(c, false);
    },
  };
}

export type ConnectionKeeper = ReturnType<typeof createConnectionKeeper>;
