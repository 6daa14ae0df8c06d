import { decisionDriver } from "./fixture";

/**
 * Instructions per decision, independent of machine load. Bundle this file and run it under
 * callgrind twice with different counts; the difference of the two totals divided by the
 * difference of the counts is the steady-state cost of one decision (start-up, parsing and JIT
 * warm-up cancel out):
 *
 *   npx esbuild bench/core/callgrind-driver.ts --bundle --platform=node --outfile=/tmp/cg/driver.cjs
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg/a node /tmp/cg/driver.cjs 3 100000
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg/b node /tmp/cg/driver.cjs 3 300000
 *
 * argv: candidates, decisions (after a fixed 100,000-decision warm-up).
 */
const n = Number(process.argv[2] ?? 3);
const count = Number(process.argv[3] ?? 100_000);
const once = decisionDriver(n);
let sink = 0;
for (let i = 0; i < 100_000 + count; i++) sink += once();
if (sink === 0) throw new Error("no decision selected a provider");
