import { coalesce, createListenConnection } from "../../db";

export type TBreakerListenerOptions = {
  databaseUrl: string;
  channel: string;
  pollMs: number;
  log: (line: string) => void;
  onNotice: () => Promise<void>;
  onPoll: () => Promise<void>;
  onConnect: () => Promise<void>;
};

/**
 * Breaker notices over their own LISTEN connection. Notices and polls each run coalesced, so a
 * burst of notices costs one pull at a time; a failed pull waits for the next notice or poll.
 */
export function createBreakerListener(opts: TBreakerListenerOptions) {
  const quiet = () => {};
  const onNotice = coalesce(opts.onNotice, quiet);
  const onPoll = coalesce(opts.onPoll, quiet);
  return createListenConnection({
    databaseUrl: opts.databaseUrl,
    channels: [opts.channel],
    applicationName: "switchyard-breakers",
    pollMs: opts.pollMs,
    log: opts.log,
    onNotice: () => void onNotice(),
    onPoll: () => void onPoll(),
    onConnect: () => opts.onConnect().catch(quiet),
  });
}
