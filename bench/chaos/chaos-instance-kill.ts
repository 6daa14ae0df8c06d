import path from "node:path";
import { fileURLToPath } from "node:url";
import { runFaultCli } from "./cli";
import { runInstanceKill } from "./instance-kill";

// `npm run chaos:instance-kill`: SIGKILL one of three instances mid-load (sync durability), start it again.
void runFaultCli({
  name: "chaos-instance-kill",
  title: "App instance killed under load",
  command: "npm run chaos:instance-kill",
  flags: {
    rate: { default: 200, help: "decide calls per second across the three instances" },
    steady: { default: 15, help: "seconds of load before the kill" },
    down: { default: 5, help: "seconds the killed instance stays down" },
    after: { default: 10, help: "seconds of load after it is back" },
  },
  run: (v, log) =>
    runInstanceKill({
      dir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
      rate: v.rate!,
      steadySeconds: v.steady!,
      downSeconds: v.down!,
      afterSeconds: v.after!,
      log,
    }),
});
