import http from "node:http";

export type THttpResult =
  | { ok: true; status: number; body: string; headers: http.IncomingHttpHeaders; ms: number }
  /** No HTTP answer: the connection was refused or reset, or the answer took longer than the timeout. */
  | { ok: false; error: "connection" | "timeout"; detail: string; ms: number };

/** Keep-alive connections to the loopback servers, as a service's HTTP client would hold them. */
export const loopbackAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export function request(method: string, url: string, opts: { body?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<THttpResult> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: THttpResult) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const req = http.request(
      url,
      {
        method,
        agent: loopbackAgent,
        headers: {
          ...(opts.body !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(opts.body)) } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          done({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers, ms: performance.now() - t0 }),
        );
        res.on("error", (err) => done({ ok: false, error: "connection", detail: err.message, ms: performance.now() - t0 }));
      },
    );
    req.setTimeout(opts.timeoutMs ?? 15_000, () => {
      done({ ok: false, error: "timeout", detail: `no answer within ${opts.timeoutMs ?? 15_000} ms`, ms: performance.now() - t0 });
      req.destroy();
    });
    req.on("error", (err) => done({ ok: false, error: "connection", detail: (err as NodeJS.ErrnoException).code ?? err.message, ms: performance.now() - t0 }));
    req.end(opts.body);
  });
}
