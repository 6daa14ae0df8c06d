import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { classifyTransportError } from "./classify";
import { createHttp1Client, Http1Error, Http1ResponseParser, type Http1Client } from "./http1-client";

const closers: Array<() => void> = [];
afterEach(() => {
  while (closers.length > 0) closers.pop()!();
});

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));
}

function client(opts: Parameters<typeof createHttp1Client>[0] = {}): Http1Client {
  const c = createHttp1Client(opts);
  closers.push(() => c.close());
  return c;
}

/** A raw TCP server that answers each request (read until its head ends) with `answer(n)`, n counting requests per connection. */
async function rawServer(answer: (n: number, socket: net.Socket) => void): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    let n = 0;
    let seen = "";
    socket.on("data", (c: Buffer) => {
      seen += c.toString("latin1");
      while (seen.includes("\r\n\r\n")) {
        const headEnd = seen.indexOf("\r\n\r\n") + 4;
        const length = Number(/content-length: (\d+)/i.exec(seen.slice(0, headEnd))?.[1] ?? 0);
        if (seen.length < headEnd + length) return;
        seen = seen.slice(headEnd + length);
        answer(n++, socket);
      }
    });
    socket.on("error", () => {});
  });
  closers.push(() => server.close());
  return { port: await listen(server), connections: () => connections };
}

const timeout = () => new Error("timed out");
const post = (port: number, body = '{"q":1}', scheme = "http") => ({
  url: `${scheme}://127.0.0.1:${port}/v1/x?y=1`,
  method: "POST",
  headers: { "content-type": "application/json" },
  body,
});

describe("Http1ResponseParser", () => {
  const whole =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Twice: 1\r\nX-Twice: 2\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n";

  it("reads a chunked answer fed one byte at a time, with trailers, extensions and repeated headers", () => {
    const p = new Http1ResponseParser(false, 1024);
    const bytes = Buffer.from(whole);
    const doneAt: number[] = [];
    for (let i = 0; i < bytes.length; i++) if (p.push(bytes.subarray(i, i + 1))) doneAt.push(i);
    expect(doneAt).toEqual([bytes.length - 1]);
    expect(p.status).toBe(200);
    expect(p.body.toString()).toBe("hello, world");
    expect(p.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(p.headers["x-twice"]).toBe("1, 2");
    expect(p.keepAlive).toBe(true);
    expect(p.extra).toBe(false);
  });

  it("skips 1xx interim answers and reads the final one; a close-delimited body completes at the end of the connection", () => {
    const p = new Http1ResponseParser(false, 1024);
    expect(p.push(Buffer.from("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 201 Created\r\nContent-Type: text/plain\r\n\r\npart one, "))).toBe(false);
    expect(p.push(Buffer.from("part two"))).toBe(false);
    expect(p.end()).toBe(true);
    expect([p.status, p.body.toString(), p.keepAlive]).toEqual([201, "part one, part two", false]);
  });

  it("has no body for 204, 304 and HEAD, and marks bytes after a complete answer", () => {
    const p = new Http1ResponseParser(false, 1024);
    expect(p.push(Buffer.from("HTTP/1.1 204 No Content\r\n\r\n"))).toBe(true);
    expect(p.body.length).toBe(0);
    const head = new Http1ResponseParser(true, 1024);
    expect(head.push(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"))).toBe(true);
    const extra = new Http1ResponseParser(false, 1024);
    expect(extra.push(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1"))).toBe(true);
    expect([extra.body.toString(), extra.extra]).toEqual(["ok", true]);
  });

  it.each([
    ["a status line that is not HTTP/1.x", "HTTP/2 200\r\n\r\n", "HPE_INVALID_STATUS"],
    ["a header line without a colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", "HPE_INVALID_HEADER_TOKEN"],
    ["conflicting content-lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", "HPE_UNEXPECTED_CONTENT_LENGTH"],
    ["a negative content-length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "HPE_INVALID_CONTENT_LENGTH"],
    ["a bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "HPE_INVALID_CHUNK_SIZE"],
    ["a chunk without its CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX", "HPE_INVALID_CHUNK_SIZE"],
    ["a body over the limit", "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n", "HPE_BODY_TOO_LARGE"],
  ])("refuses %s", (_, text, code) => {
    const p = new Http1ResponseParser(false, 1024);
    expect(() => p.push(Buffer.from(text))).toThrow(expect.objectContaining({ code }));
  });
});

describe("createHttp1Client", () => {
  it("keeps connections alive across requests and sends the whole request as written", async () => {
    const seen: Array<{ method: string; url: string; host: string; type: string; body: string }> = [];
    const sockets = new Set<net.Socket>();
    const server = http.createServer((req, res) => {
      sockets.add(req.socket);
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, host: req.headers.host!, type: req.headers["content-type"]!, body });
        res.writeHead(200, { "content-type": "application/json", "x-ratelimit-remaining": "9" }).end(JSON.stringify({ n: seen.length }));
      });
    });
    closers.push(() => server.close());
    const port = await listen(server);
    const c = client();
    for (let i = 1; i <= 3; i++) {
      const res = await c.request(post(port, `{"i":${i}}`), 2_000, timeout);
      expect([res.status, JSON.parse(res.body.toString()), res.headers["x-ratelimit-remaining"]]).toEqual([200, { n: i }, "9"]);
    }
    expect(seen[2]).toEqual({ method: "POST", url: "/v1/x?y=1", host: `127.0.0.1:${port}`, type: "application/json", body: '{"i":3}' });
    expect(sockets.size).toBe(1);
    expect(c.connections()).toEqual({ [`http://127.0.0.1:${port}`]: 1 });
  });

  it("closes connections idle past the idle timeout, without piling listeners on a busy one", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    closers.push(() => process.off("warning", onWarning));
    let closed = 0;
    const watched = new WeakSet<net.Socket>();
    const server = await rawServer((_, socket) => {
      if (!watched.has(socket)) socket.once("close", () => closed++);
      watched.add(socket);
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const c = client({ idleTimeoutMs: 50 });
    for (let i = 0; i < 15; i++) await c.request(post(server.port), 2_000, timeout);
    expect(server.connections()).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(warnings).toEqual([]);
    expect(closed).toBeGreaterThan(0);
    expect(c.connections()).toEqual({ [`http://127.0.0.1:${server.port}`]: 0 });
  });

  it("opens a new connection after an answer with connection: close, or one the server closed while idle", async () => {
    const server = await rawServer((n, socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\n${n === 0 ? "Connection: close\r\n" : ""}\r\nok`);
      if (n === 0) socket.end();
      if (n === 1) setTimeout(() => socket.destroy(), 20);
    });
    const c = client();
    expect((await c.request(post(server.port), 2_000, timeout)).body.toString()).toBe("ok");
    expect((await c.request(post(server.port), 2_000, timeout)).body.toString()).toBe("ok");
    await new Promise((r) => setTimeout(r, 100));
    expect((await c.request(post(server.port), 2_000, timeout)).body.toString()).toBe("ok");
    expect(server.connections()).toBe(3);
  });

  it("reads a close-delimited answer to its end", async () => {
    const server = await rawServer((_, socket) => socket.end("HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n\r\nupstream gone"));
    const res = await client().request(post(server.port), 2_000, timeout);
    expect([res.status, res.body.toString()]).toEqual([502, "upstream gone"]);
  });

  it("fails a cut answer as a reset connection, which classifies as a transient network failure, and recovers on a new connection", async () => {
    const server = await rawServer((n, socket) => {
      if (n === 0 && server.connections() === 1) socket.end("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial");
      else socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const c = client();
    const err = await c.request(post(server.port), 2_000, timeout).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Http1Error);
    expect((err as Http1Error).code).toBe("ECONNRESET");
    expect(classifyTransportError(err, false)).toMatchObject({ errorClass: "transient", outcomeClass: "network" });
    expect((await c.request(post(server.port), 2_000, timeout)).body.toString()).toBe("ok");
  });

  it("reports a refused connection with its code", async () => {
    const spare = net.createServer();
    const port = await listen(spare);
    await new Promise((r) => spare.close(r));
    const err = await client()
      .request(post(port), 2_000, timeout)
      .catch((e: unknown) => e);
    expect((err as Http1Error).code).toBe("ECONNREFUSED");
  });

  it("rejects with the timeout's error when the answer is late and does not reuse that connection", async () => {
    const server = await rawServer((n, socket) => {
      if (server.connections() === 1) setTimeout(() => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlate"), 300);
      else socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const c = client();
    const late = new Error("too late");
    await expect(c.request(post(server.port), 50, () => late)).rejects.toBe(late);
    expect((await c.request(post(server.port), 2_000, timeout)).body.toString()).toBe("ok");
    expect(server.connections()).toBe(2);
  });

  it("queues requests beyond the connection limit and serves them as connections come free", async () => {
    const sockets = new Set<net.Socket>();
    let inFlight = 0;
    let most = 0;
    const server = http.createServer((req, res) => {
      sockets.add(req.socket);
      inFlight++;
      most = Math.max(most, inFlight);
      req.resume();
      setTimeout(() => {
        inFlight--;
        res.end("ok");
      }, 10);
    });
    closers.push(() => server.close());
    const port = await listen(server);
    const c = client({ maxConnectionsPerOrigin: 2 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => c.request(post(port), 5_000, timeout)));
    expect(answers.map((a) => a.body.toString())).toEqual(Array(8).fill("ok"));
    expect(most).toBe(2);
    expect(sockets.size).toBe(2);
  });

  it("refuses header values with line breaks (no request smuggling through a template)", async () => {
    await expect(client().request({ ...post(1), headers: { "x-evil": "a\r\nx-injected: 1" } }, 1_000, timeout)).rejects.toMatchObject({
      code: "ERR_INVALID_CHAR",
    });
  });

  it("speaks HTTPS, verifying the server's certificate", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "http1-tls-"));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" }).end('{"secure":true}');
    });
    closers.push(() => server.close());
    const port = await listen(server);
    const trusted = client({ ca: readFileSync(cert) });
    const res = await trusted.request(post(port, "{}", "https"), 5_000, timeout);
    expect([res.status, res.body.toString()]).toEqual([200, '{"secure":true}']);
    // Without the certificate among the trusted ones, the connection is refused.
    const err = await client()
      .request(post(port, "{}", "https"), 5_000, timeout)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Http1Error);
    expect((err as Http1Error).code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
  });
});
