import type pg from "pg";
import type { BudgetGuard } from "./budget";

/**
 * Shares execute-mode spend between instances through `gateway_spend`, so the cost caps of
 * `gateway_operation` hold for the cluster. Every `intervalMs` (default 1 s) an instance adds the
 * spend it has not shared yet to its own row per (operation, window), then reads the other
 * instances' rows for the current minute and day; the budget guard checks this instance's spend
 * plus theirs. The caps can be overshot by what the other instances spend between two syncs.
 * While Postgres is unreachable the unshared spend is kept (and written later) and the last known
 * share of the others stays in force. A write whose commit succeeded but whose answer was lost is
 * written again on the next sync: spend can be over-counted, never under-counted. An instance
 * restarted under the same SWITCHYARD_INSTANCE_ID takes its own rows as its starting spend.
 */
export type TSpendSyncOptions = {
  pool: pg.Pool;
  guard: BudgetGuard;
  instanceId: string;
  intervalMs?: number;
  now?: () => number;
  log?: (line: string) => void;
};

const ADD = `insert into gateway_spend (operation_key, window_kind, window_start, instance_id, amount, updated_at)
  select t.operation, t.kind, t.window_start, $5, t.amount, now()
    from unnest($1::text[], $2::text[], $3::timestamptz[], $4::float8[]) as t(operation, kind, window_start, amount)
  on conflict (operation_key, window_kind, window_start, instance_id)
  do update set amount = gateway_spend.amount + excluded.amount, updated_at = excluded.updated_at`;

const READ = `select operation_key, window_kind,
    coalesce(sum(amount) filter (where instance_id <> $1), 0)::float8 as others,
    coalesce(sum(amount) filter (where instance_id = $1), 0)::float8 as mine
  from gateway_spend
  where (window_kind = 'minute' and window_start = $2) or (window_kind = 'day' and window_start = $3)
  group by 1, 2`;

const PRUNE = "delete from gateway_spend where window_start < $1";
const KEEP_MS = 2 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export function createSpendSync(opts: TSpendSyncOptions) {
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  const intervalMs = opts.intervalMs ?? 1_000;
  let running: Promise<void> | null = null;
  let failing = false;
  let lastPrune = 0;

  async function run(): Promise<void> {
    const deltas = opts.guard.takePending();
    try {
      if (deltas.length > 0) {
        await opts.pool.query({
          name: "gateway_spend_add",
          text: ADD,
          values: [
            deltas.map((d) => d.operation),
            deltas.map((d) => d.kind),
            deltas.map((d) => new Date(d.windowStart).toISOString()),
            deltas.map((d) => d.amount),
            opts.instanceId,
          ],
        });
      }
    } catch (err) {
      opts.guard.restore(deltas);
      throw err;
    }
    const w = opts.guard.windows();
    const { rows } = await opts.pool.query<{ operation_key: string; window_kind: string; others: number; mine: number }>({
      name: "gateway_spend_read",
      text: READ,
      values: [opts.instanceId, new Date(w.minuteStart).toISOString(), new Date(w.dayStart).toISOString()],
    });
    const others = new Map<string, { minute: number; day: number; mineMinute: number; mineDay: number }>();
    for (const r of rows) {
      const o = others.get(r.operation_key) ?? { minute: 0, day: 0, mineMinute: 0, mineDay: 0 };
      if (r.window_kind === "minute") {
        o.minute = r.others;
        o.mineMinute = r.mine;
      } else {
        o.day = r.others;
        o.mineDay = r.mine;
      }
      others.set(r.operation_key, o);
    }
    opts.guard.setOthers({ ...w, others });
    const t = now();
    if (t - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = t;
      await opts.pool.query(PRUNE, [new Date(t - KEEP_MS).toISOString()]);
    }
  }

  function sync(): Promise<void> {
    running ??= run()
      .then(() => {
        if (failing) log("gateway: spend sync works again");
        failing = false;
      })
      .catch((err: unknown) => {
        if (!failing) log(`gateway: spend sync failed, caps use this instance's spend and the last known share of the others: ${(err as Error).message}`);
        failing = true;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  const timer = setInterval(() => void sync(), intervalMs);
  timer.unref();

  return {
    /** One sync now (tests, shutdown); joins one already running. */
    sync,
    async close(): Promise<void> {
      clearInterval(timer);
      await running;
      await sync();
    },
  };
}

export type SpendSync = ReturnType<typeof createSpendSync>;
