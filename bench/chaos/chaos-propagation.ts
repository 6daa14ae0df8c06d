import path from "node:path";
import { fileURLToPath } from "node:url";
import { runFaultCli } from "./cli";
import { runPropagation } from "./propagation";

// `npm run chaos:propagation`: kill switch and provider kill set on instance 1's side, timed until instance 2's decisions reflect them.
void runFaultCli({
  name: "chaos-propagation",
  title: "Override propagation between instances",
  command: "npm run chaos:propagation",
  flags: {
    trials: { default: 100, help: "trials per override kind (kill switch, provider kill)" },
    rate: { default: 50, help: "background decide calls per second during the trials (0: none)" },
    "trial-timeout": { default: 35_000, help: "ms after which a trial counts as never propagated (polling is 30 s)" },
  },
  run: (v, log) =>
    runPropagation({
      dir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
      trials: v.trials!,
      rate: v.rate!,
      trialTimeoutMs: v["trial-timeout"]!,
      log,
    }),
});
