import path from "node:path";
import { fileURLToPath } from "node:url";
import { runFaultCli } from "./cli";
import { runLeaderKill } from "./leader-kill";

// `npm run chaos:leader-kill`: provider_A degrades, the controller leader is SIGKILLed, the other instance takes over.
void runFaultCli({
  name: "chaos-leader-kill",
  title: "Controller leader killed while shares move",
  command: "npm run chaos:leader-kill",
  flags: {
    rate: { default: 200, help: "decide calls per second across the three instances" },
    steady: { default: 25, help: "seconds of load with provider_A degraded before the kill" },
    after: { default: 20, help: "seconds of load after the takeover" },
    "failure-rate": {
      default: 0.5,
      help: "share of provider_A's calls that fail (its breakers never trip in this run: shares move by score, capped per minute)",
    },
    "failure-latency": { default: 1000, help: "provider_A's latency in ms" },
    tick: { default: 1000, help: "CONTROLLER_TICK_MS and METRICS_REFRESH_MS of the instances" },
    "takeover-timeout": { default: 30, help: "seconds allowed for the takeover before the run fails" },
  },
  run: (v, log) =>
    runLeaderKill({
      dir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
      rate: v.rate!,
      steadySeconds: v.steady!,
      afterSeconds: v.after!,
      failureRate: v["failure-rate"]!,
      failureLatencyMs: v["failure-latency"]!,
      tickMs: v.tick!,
      takeoverTimeoutSeconds: v["takeover-timeout"]!,
      log,
    }),
});
