import { parseArgs } from "node:util";
import { randomUUID } from "node:crypto";
import { FAULT_KINDS, defaultMagnitude, type TFaultKind } from "../lib/demo/fault-model";
import { DEFAULT_OPERATIONS, createSimulator } from "../lib/demo/simulator";

const HELP = `npm run simulate -- [options]

Synthetic services calling a running Switchyard over HTTP: decide, then the outcomes of a
simulated provider call. Ctrl-C stops and prints the totals.

  --rate N           decide calls per second (default 20)
  --url URL          Switchyard's base URL (default http://127.0.0.1:3000)
  --api-key KEY      data-plane key (default $SWITCHYARD_API_KEY; not needed in demo mode)
  --operations A,B   operations to call (default ${DEFAULT_OPERATIONS.map((o) => o.key).join(",")})
  --duration S       stop after S seconds (default: run until Ctrl-C)
  --fault SPEC       kind:provider:region:startAfterS:durationS[:magnitude], repeatable,
                     kind one of ${FAULT_KINDS.join(", ")}; e.g. outage:provider_A:EU:30:60
`;

function fail(message: string): never {
  process.stderr.write(`simulate: ${message}\n\n${HELP}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "20" },
    url: { type: "string", default: "http://127.0.0.1:3000" },
    "api-key": { type: "string" },
    operations: { type: "string" },
    duration: { type: "string" },
    fault: { type: "string", multiple: true, default: [] },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const rate = Number(values.rate);
if (!(rate > 0)) fail(`--rate must be a positive number, got ${values.rate}`);
const duration = values.duration === undefined ? null : Number(values.duration);
if (duration !== null && !(duration > 0)) fail(`--duration must be a positive number of seconds, got ${values.duration}`);

const start = Date.now();
const faults = values.fault.map((spec) => {
  const [kind, provider, region, after, length, magnitude] = spec.split(":");
  if (!kind || !(FAULT_KINDS as readonly string[]).includes(kind)) fail(`--fault ${spec}: kind must be one of ${FAULT_KINDS.join(", ")}`);
  if (!provider || !region || !(Number(after) >= 0) || !(Number(length) > 0))
    fail(`--fault ${spec}: expected kind:provider:region:startAfterS:durationS[:magnitude]`);
  const startsAt = start + Number(after) * 1000;
  return {
    id: randomUUID(),
    provider,
    region,
    kind: kind as TFaultKind,
    magnitude: magnitude === undefined ? defaultMagnitude(kind as TFaultKind) : Number(magnitude),
    startsAt,
    endsAt: startsAt + Number(length) * 1000,
  };
});

const apiKey = values["api-key"] ?? process.env.SWITCHYARD_API_KEY;
const sim = createSimulator({
  baseUrl: values.url,
  rate,
  log: (line) => process.stderr.write(`${line}\n`),
  ...(apiKey ? { apiKey } : {}),
  ...(values.operations ? { operations: values.operations.split(",").map((key) => ({ key: key.trim(), weight: 1 })) } : {}),
});
sim.setFaults(faults);
sim.start();
process.stdout.write(`simulate: ${rate} decide calls/s against ${values.url}${faults.length > 0 ? `, ${faults.length} scheduled fault(s)` : ""}\n`);

const report = () => {
  const s = sim.stats();
  const picks = Object.entries(s.selected)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([p, n]) => `${p} ${n}`)
    .join(", ");
  process.stdout.write(
    `simulate: ${s.decided} decided (${s.decideErrors} errors, ${s.skipped} skipped), ${s.outcomesSent} outcomes (${s.outcomeErrors} rejected); ${picks}\n`,
  );
};
const progress = setInterval(report, 5_000);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(progress);
  await sim.stop();
  report();
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
if (duration !== null) setTimeout(() => void stop(), duration * 1000);
