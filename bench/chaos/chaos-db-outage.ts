import path from "node:path";
import { fileURLToPath } from "node:url";
import { runDbOutage } from "./db-outage";
import { runFaultCli } from "./cli";

// `npm run chaos:db-outage`: three instances under decide + outcome load; PostgreSQL stopped and started again.
void runFaultCli({
  name: "chaos-db-outage",
  title: "Database outage under load",
  command: "npm run chaos:db-outage",
  flags: {
    rate: { default: 200, help: "decide calls per second across the three instances (each with a provider call and an outcome)" },
    steady: { default: 20, help: "seconds of load before PostgreSQL stops" },
    outage: { default: 30, help: "seconds PostgreSQL stays down" },
    after: { default: 10, help: "seconds of load after full recovery" },
    "recovery-timeout": { default: 120, help: "seconds allowed for full recovery before the run fails" },
  },
  run: (v, log) =>
    runDbOutage({
      dir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
      rate: v.rate!,
      steadySeconds: v.steady!,
      outageSeconds: v.outage!,
      afterSeconds: v.after!,
      recoveryTimeoutSeconds: v["recovery-timeout"]!,
      log,
    }),
});
