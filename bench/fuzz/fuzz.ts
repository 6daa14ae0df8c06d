import { register } from "node:module";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

const HELP = `npm run fuzz [-- options]

Throws malformed, oversized, deeply nested, wrongly-typed and wrongly-encoded requests, bodies
with repeated keys and reused requestIds at every data-plane endpoint (a real server,
SWITCHYARD_DATAPLANE_ONLY=1, on a throwaway database) while 200 slow clients trickle headers and
bodies and /health is timed, then bursts of concurrent decides reusing one requestId; then every
control-plane route handler (called in-process), and generated factor lists at router-core's
parser. Exits 1 when an invariant breaks (see bench/README.md).

  --runs N          data-plane requests (default 10000)
  --control-runs N  control-plane requests (default 3000)
  --yaml-runs N     factor-list parser cases (default 2000)
  --seed N          fast-check seed (default: random, printed so a run can be repeated)
  --help            this text
`;

// Route modules import "server-only", which throws outside React's server build; an empty
// module stands in, as test/support/server-only-stub.ts does for the unit tests (a resolve
// hook, registered before any route module is imported).
register(
  `data:text/javascript,${encodeURIComponent('export async function resolve(s, c, next) { return s === "server-only" ? { url: "data:text/javascript,export{}", shortCircuit: true } : next(s, c); }')}`,
  import.meta.url,
);

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10000" },
    "control-runs": { type: "string", default: "3000" },
    "yaml-runs": { type: "string", default: "2000" },
    seed: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
function count(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`--${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}
const runs = count("runs", values.runs);
const controlRuns = count("control-runs", values["control-runs"]);
const yamlRuns = count("yaml-runs", values["yaml-runs"]);
const seed = values.seed === undefined ? randomBytes(4).readUInt32BE() >>> 1 : count("seed", values.seed);

async function main(): Promise<number> {
  // Imported only now, after the resolve hook above: the phases load route modules.
  const { runFuzzing } = await import("./fuzz-phases");
  return runFuzzing({ runs, controlRuns, yamlRuns, seed });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fuzz: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
