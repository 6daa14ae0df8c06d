import http from "node:http";
import type { AddressInfo } from "node:net";

export type TReceived = { path: string; headers: http.IncomingHttpHeaders; body: string; json: Record<string, unknown> };

/**
 * A local receiver for notifications: records every request (raw body kept for signature
 * checks), answers `status` (200 unless set), and can go down and come back on the same port.
 */
export async function startReceiver() {
  const received: TReceived[] = [];
  let status = 200;
  let port = 0;
  let server: http.Server | null = null;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(body) as Record<string, unknown>;
          } catch {
            // recorded as received; a test asserts on the raw body
          }
          received.push({ path: req.url ?? "", headers: req.headers, body, json });
          res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "unavailable");
        });
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
      server = null;
    });
  await listen();
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    setStatus: (s: number) => {
      status = s;
    },
    down,
    up: listen,
    close: down,
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
