import type { PrismaClient } from "../db";
import type { TFault } from "./fault-model";
import { listFaults } from "./list-faults";
import { startDemoLlmProviders } from "./llm-providers";
import { pointLlmChatAtDemo } from "./point-llm-chat-at-demo";
import { createSimulator } from "./simulator";

/**
 * Demo timings: the controller and the metric merge run every 2 s instead of every 5 s / 30 s, so
 * a fault injected from the chaos panel shows on the overview within seconds. Variables the
 * user set win. Returns the ones applied, for the start-up log.
 */
export const DEMO_TIMINGS = { CONTROLLER_TICK_MS: "2000", METRICS_REFRESH_MS: "2000" } as const;

export function applyDemoTimings(env: NodeJS.ProcessEnv): string[] {
  const applied: string[] = [];
  for (const [name, value] of Object.entries(DEMO_TIMINGS)) {
    if (env[name] === undefined || env[name] === "") {
      env[name] = value;
      applied.push(`${name}=${value}`);
    }
  }
  return applied;
}

/** Decide calls per second of the built-in simulator; a few dozen keep the 2-core demo machine responsive. */
export function demoRate(env: NodeJS.ProcessEnv): number {
  const raw = env.SWITCHYARD_DEMO_RATE;
  if (raw === undefined || raw === "") return 30;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`SWITCHYARD_DEMO_RATE must be a number of requests per second >= 0, got ${raw}`);
  return n;
}

const FAULT_POLL_MS = 1_000;

/**
 * The demo's providers and synthetic services, in the server's own process. The chaos panel
 * writes faults to demo_fault; the simulator and the demo LLM providers pick them up within a
 * second. LLM_CHAT's adapters are pointed at the demo LLM providers (then `reloadGateway` makes
 * execute mode read them), so execute mode works in the demo even with the simulator off
 * (`rate` 0). The simulator uses only the server's HTTP API.
 */
export async function startDemoTraffic(opts: {
  baseUrl: string;
  apiKey?: string;
  rate: number;
  prisma: PrismaClient;
  reloadGateway: () => Promise<void>;
  log: (line: string) => void;
}) {
  let faults: readonly TFault[] = [];
  const sim =
    opts.rate > 0 ? createSimulator({ baseUrl: opts.baseUrl, rate: opts.rate, log: opts.log, ...(opts.apiKey ? { apiKey: opts.apiKey } : {}) }) : null;
  const llm = await startDemoLlmProviders({ faults: () => faults });
  try {
    if ((await pointLlmChatAtDemo(opts.prisma, llm.url)) > 0) await opts.reloadGateway();
  } catch (err) {
    await llm.close();
    throw err;
  }
  let failedPolls = 0;
  const poll = async () => {
    try {
      faults = await listFaults(opts.prisma, 0);
      sim?.setFaults(faults);
      failedPolls = 0;
    } catch (err) {
      // The faults in hand stay in force; say so once, not every second.
      if (failedPolls++ === 0) opts.log(`demo traffic: cannot read faults: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  let closed = false;
  const timer = setInterval(() => void poll(), FAULT_POLL_MS);
  void poll().then(() => {
    if (!closed) sim?.start();
  });
  return {
    simulator: sim,
    llmProviders: llm,
    async close(): Promise<void> {
      closed = true;
      clearInterval(timer);
      await sim?.stop();
      await llm.close();
    },
  };
}
