import http from "node:http";
import net from "node:net";

/** One answer as the probe saw it: status (0 when the connection died first), headers, body, time taken. */
export type TAnswer = { status: number; headers: http.IncomingHttpHeaders; body: string; ms: number };

export type TRequest = { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number };

/** A plain node:http request: no client-side header rules, no redirects followed, every byte as given. */
export function request(base: string, path: string, opts: TRequest = {}): Promise<TAnswer> {
  const t0 = performance.now();
  const url = new URL(path, base);
  return new Promise((resolve) => {
    const body = typeof opts.body === "string" ? Buffer.from(opts.body) : opts.body;
    const req = http.request(
      url,
      {
        method: opts.method ?? (body ? "POST" : "GET"),
        headers: { ...(body ? { "content-length": String(body.length) } : {}), ...opts.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - t0 }),
        );
        res.on("error", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - t0 }),
        );
      },
    );
    req.setTimeout(opts.timeoutMs ?? 30_000, () => req.destroy(new Error("timeout")));
    req.on("error", (err) => resolve({ status: 0, headers: {}, body: err.message, ms: performance.now() - t0 }));
    req.end(body);
  });
}

export const errorCode = (a: TAnswer): string => {
  try {
    return (JSON.parse(a.body) as { error?: { code?: string } }).error?.code ?? "";
  } catch {
    return "";
  }
};

/**
 * A raw socket that sends `head` (and then `trickle`, one byte every `everyMs`) and reports
 * how long the server kept it open and what it answered. `abortAfterMs` closes it from the
 * client side instead (an aborted upload).
 */
export function holdSocket(
  port: number,
  head: string,
  opts: { trickle?: string; everyMs?: number; giveUpMs: number; abortAfterMs?: number },
): Promise<{ openMs: number; answerMs: number | null; answer: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    let answerMs: number | null = null;
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ openMs: performance.now() - t0, answerMs, answer });
    };
    const giveUp = setTimeout(() => {
      socket.destroy();
      done();
    }, opts.giveUpMs);
    socket.on("connect", () => {
      socket.write(head);
      if (opts.trickle) {
        timer = setInterval(() => {
          if (sent < opts.trickle!.length && socket.writable) socket.write(opts.trickle![sent++]!);
        }, opts.everyMs ?? 1000);
      }
      if (opts.abortAfterMs !== undefined) {
        setTimeout(() => {
          socket.destroy();
          done();
        }, opts.abortAfterMs);
      }
    });
    socket.on("data", (b: Buffer) => {
      answerMs ??= performance.now() - t0;
      answer += b.toString("latin1");
    });
    socket.on("close", done);
    socket.on("error", () => {});
  });
}

/** Milliseconds /api/v1/health takes, sampled every `everyMs` until stopped: the stall an attack causes to everyone else. */
export function watchHealth(base: string, everyMs = 20): { stop(): Promise<number> } {
  let worst = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const a = await request(base, "/api/v1/health", { timeoutMs: 30_000 });
      worst = Math.max(worst, a.ms);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return worst;
    },
  };
}

/**
 * How much longer /health took while `attack` ran than in the same time just before it: what
 * the attack added for everyone else. /health reads the database, so its own time is the
 * baseline, not zero.
 */
export async function healthStall<T>(base: string, attack: () => Promise<T>): Promise<{ result: T; addedMs: number; baselineMs: number; duringMs: number }> {
  const t0 = performance.now();
  const during = watchHealth(base);
  const result = await attack();
  const duringMs = await during.stop();
  const baseline = watchHealth(base);
  await new Promise((r) => setTimeout(r, Math.max(1000, performance.now() - t0)));
  const baselineMs = await baseline.stop();
  return { result, addedMs: Math.max(0, duringMs - baselineMs), baselineMs, duringMs };
}
