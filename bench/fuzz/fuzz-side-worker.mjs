// The load that runs beside the fuzzer, on a thread of its own: the fuzzer's thread builds
// bodies of megabytes and would otherwise delay these timings by its own pauses. Plain
// JavaScript so Node loads it as is, under tsx and under vitest alike. See fuzz-concurrent.ts.
import net from "node:net";
import { parentPort, workerData } from "node:worker_threads";

const { base, port, apiKey, healthIntervalMs, slow } = workerData;
const now = () => performance.timeOrigin + performance.now();
let stopped = false;

/**
 * GET `path` on a kept-alive connection every healthIntervalMs, timed: [{at, ms, ok}]. /health
 * asks Postgres; an unknown path is answered 404 by the router alone, so it times the event loop
 * without the database and tells a stalled loop from a slow query.
 */
function probe(path, expected) {
  const samples = [];
  const done = (async () => {
    while (!stopped) {
      const at = now();
      let ok = false;
      try {
        const res = await fetch(`${base}${path}`);
        await res.arrayBuffer();
        ok = res.status === expected;
      } catch {
        ok = false;
      }
      samples.push({ at, ms: now() - at, ok });
      await new Promise((r) => setTimeout(r, healthIntervalMs));
    }
  })();
  return { samples, done };
}
const health = probe("/api/v1/health", 200);
const loop = probe("/api/v1/no-such-endpoint", 404);

/** Connections trickling one byte every slow.trickleMs; each closed one is judged and replaced. */
const report = { sockets: 0, answered408: 0, heldMaxMs: 0, violations: [] };
const open = new Set();
const targets = ["/api/v1/decide", "/api/v1/outcomes", "/api/v1/execute/SEND_SMS"];
let n = 0;
function violate(v) {
  if (report.violations.length < 5) report.violations.push(v);
}
function oneSlowClient() {
  if (stopped) return;
  const i = n++;
  const target = targets[i % targets.length];
  const body = `{"region":"EU","operation":"SEND_SMS","requestId":"slow-${i}","input":{"to":"1","text":"t"}}`;
  const head = `POST ${target} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n`;
  // Even: the headers never end. Odd: the headers arrive, then the body trickles.
  const [sent, trickled] = i % 2 === 0 ? [head.slice(0, 40), head.slice(40)] : [`${head}\r\n`, body];
  const socket = net.connect(port, "127.0.0.1");
  open.add(socket);
  report.sockets++;
  const t0 = now();
  let received = "";
  let at = 0;
  const timer = setInterval(() => {
    if (at < trickled.length && !socket.destroyed) socket.write(trickled[at++]);
  }, slow.trickleMs);
  socket.on("data", (d) => (received += d.toString("latin1")));
  socket.on("error", () => {});
  socket.on("connect", () => socket.write(sent));
  socket.on("close", () => {
    clearInterval(timer);
    open.delete(socket);
    if (stopped) return;
    const held = now() - t0;
    report.heldMaxMs = Math.max(report.heldMaxMs, held);
    if (/^HTTP\/1\.1 408 /.test(received) && received.includes('"code":"request_timeout"')) report.answered408++;
    else violate(`${target}: closed after ${held.toFixed(0)} ms with ${JSON.stringify(received.slice(0, 120))}`);
    if (held > slow.limitMs) violate(`${target}: held ${held.toFixed(0)} ms (limit ${slow.limitMs})`);
    oneSlowClient();
  });
}
if (slow) for (let i = 0; i < slow.count; i++) oneSlowClient();

parentPort.once("message", async () => {
  stopped = true;
  for (const s of open) s.destroy();
  await Promise.all([health.done, loop.done]);
  parentPort.postMessage({ samples: health.samples, loopSamples: loop.samples, slow: slow ? report : null });
});
