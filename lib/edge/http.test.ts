import http from "node:http";
import net from "node:net";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ContractError, readArrivedJsonBody, readJsonBody } from "./http";
import { createFastPath } from "./router";

/** Echoes the parsed body, or the ContractError's status, code and field; `/big` takes up to 8 MB, `/` 64 bytes. */
const server = http.createServer(async (req, res) => {
  try {
    if (req.url === "/arrived") {
      // readArrivedJsonBody, and whether it answered without waiting. After one await, as in decide's
      // handler: node's parser pushes a body that came with its head after the request event.
      await Promise.resolve();
      const now = readArrivedJsonBody(req, 256);
      const value = now !== undefined ? now : await readJsonBody(req, 256);
      res.end(JSON.stringify({ value, now: now !== undefined }));
      return;
    }
    const value = await readJsonBody(req, req.url === "/big" ? 8 * 1024 ** 2 : 64);
    res.end(JSON.stringify({ value }));
  } catch (err) {
    const e = err as ContractError;
    res.statusCode = e.status ?? 500;
    // The code, then each field's path and the first words of its message (docs/errors.md).
    const fields = e.fields?.map((f) => `${f.path}: ${f.message.split(" ").slice(0, 3).join(" ")}`);
    res.end(JSON.stringify({ code: e.code, ...(fields && fields.length > 0 ? { fields } : {}) }));
  }
});
let port = 0;

beforeAll(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Answers read off one keep-alive connection, in order. */
function connection() {
  const socket = net.connect(port, "127.0.0.1");
  let buffered = Buffer.alloc(0);
  const waiters: Array<() => void> = [];
  socket.on("data", (d: Buffer) => {
    buffered = Buffer.concat([buffered, d]);
    waiters.splice(0).forEach((w) => w());
  });
  return {
    write: (s: string | Buffer) => socket.write(s),
    /** The next answer's status line and body (content-length framed). */
    async next(): Promise<{ status: number; body: string }> {
      for (;;) {
        const head = buffered.indexOf("\r\n\r\n");
        const length = head === -1 ? NaN : Number(/content-length: (\d+)/i.exec(buffered.subarray(0, head).toString())?.[1]);
        if (head !== -1 && buffered.length >= head + 4 + length) {
          const status = Number(buffered.subarray(9, 12).toString());
          const body = buffered.subarray(head + 4, head + 4 + length).toString();
          buffered = buffered.subarray(head + 4 + length);
          return { status, body };
        }
        await new Promise<void>((r) => waiters.push(r));
      }
    },
    close: () => socket.destroy(),
  };
}

/** Runs `fn` on a fresh connection and closes it afterwards. */
async function onConnection(fn: (c: ReturnType<typeof connection>) => Promise<void>): Promise<void> {
  const c = connection();
  try {
    await fn(c);
  } finally {
    c.close();
  }
}

const post = (body: string, path = "/") =>
  `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe("readJsonBody", () => {
  it("reads bodies that came with their head, and the connection goes on to the next request", async () => {
    await onConnection(async (c) => {
      for (let i = 0; i < 3; i++) {
        c.write(post(`{"n":${i}}`));
        expect(await c.next()).toEqual({ status: 200, body: `{"value":{"n":${i}}}` });
      }
      // Two requests in one write (pipelined): each gets its own body.
      c.write(post('{"a":"é"}') + post('{"b":2}'));
      expect(await c.next()).toEqual({ status: 200, body: '{"value":{"a":"é"}}' });
      expect(await c.next()).toEqual({ status: 200, body: '{"value":{"b":2}}' });
    });
  });

  it("decodes strict UTF-8 whatever the bytes (ASCII, multi-byte, a BOM, invalid), and reads the media type case-insensitively", async () => {
    const raw = (type: string, body: Buffer) =>
      Buffer.concat([Buffer.from(`POST / HTTP/1.1\r\nhost: x\r\ncontent-type: ${type}\r\ncontent-length: ${body.length}\r\n\r\n`), body]);
    const cases: Array<[string, Buffer, { status: number; body: string }]> = [
      ["application/json", Buffer.from('{"a":"plain"}'), { status: 200, body: '{"value":{"a":"plain"}}' }],
      ["application/json", Buffer.from('{"a":"東京 ü"}'), { status: 200, body: '{"value":{"a":"東京 ü"}}' }],
      ["application/json", Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"b":1}')]), { status: 200, body: '{"value":{"b":1}}' }],
      [
        "application/json",
        Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
        { status: 400, body: '{"code":"malformed","fields":[": not valid UTF-8"]}' },
      ],
      ["Application/JSON; charset=utf-8", Buffer.from('{"c":2}'), { status: 200, body: '{"value":{"c":2}}' }],
      ["text/plain", Buffer.from('{"d":3}'), { status: 415, body: '{"code":"unsupported_media_type","fields":["content-type: content-type must be"]}' }],
    ];
    await onConnection(async (c) => {
      for (const [type, body, expected] of cases) {
        c.write(raw(type, body));
        expect(await c.next()).toEqual(expected);
      }
    });
  });

  it("reads a body that came with its head without waiting, with the same checks, and leaves one still arriving to readJsonBody", async () => {
    await onConnection(async (c) => {
      c.write(post('{"n":1}', "/arrived"));
      expect(await c.next()).toEqual({ status: 200, body: '{"value":{"n":1},"now":true}' });
      // null is a body (its value is not "nothing arrived").
      c.write(post("null", "/arrived"));
      expect(await c.next()).toEqual({ status: 200, body: '{"value":null,"now":true}' });
      c.write(post('{"a":1,"a":2}', "/arrived"));
      expect(await c.next()).toEqual({ status: 400, body: '{"code":"malformed","fields":["a: the key appears"]}' });
      c.write(post(`${"[".repeat(65)}${"]".repeat(65)}`, "/arrived"));
      expect((await c.next()).status).toBe(400);
      c.write(post('{"s":"\\u0000"}', "/arrived"));
      expect(await c.next()).toEqual({ status: 400, body: '{"code":"malformed","fields":["s: contains a NUL"]}' });
      c.write(post('{"n":1}', "/arrived").replace("application/json", "text/plain"));
      expect((await c.next()).status).toBe(415);
      const whole = post('{"late":true}', "/arrived");
      c.write(whole.slice(0, -5));
      await new Promise((r) => setTimeout(r, 30));
      c.write(whole.slice(-5));
      expect(await c.next()).toEqual({ status: 200, body: '{"value":{"late":true},"now":false}' });
    });
  });

  it("waits for a body that arrives in pieces after its head", async () => {
    await onConnection(async (c) => {
      const body = '{"slow":true}';
      const whole = post(body);
      c.write(whole.slice(0, whole.length - body.length));
      await new Promise((r) => setTimeout(r, 30));
      c.write(body.slice(0, 5));
      await new Promise((r) => setTimeout(r, 30));
      c.write(body.slice(5));
      expect(await c.next()).toEqual({ status: 200, body: '{"value":{"slow":true}}' });
    });
  });

  it("reads a chunked body (no content-length)", async () => {
    await onConnection(async (c) => {
      c.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{"c"\r\n3\r\n:1}\r\n0\r\n\r\n');
      expect(await c.next()).toEqual({ status: 200, body: '{"value":{"c":1}}' });
    });
  });

  it("refuses a body over the limit (413) and malformed JSON (400), and the connection stays usable", async () => {
    await onConnection(async (c) => {
      c.write(post(`{"big":"${"x".repeat(100)}"}`));
      expect(await c.next()).toEqual({ status: 413, body: '{"code":"payload_too_large"}' });
      c.write(post('{"n":'));
      expect(await c.next()).toEqual({ status: 400, body: '{"code":"malformed","fields":[": not valid JSON:"]}' });
      // A malformed body with a repeated key is malformed first.
      c.write(post('{"n":1,"n":'));
      expect(await c.next()).toEqual({ status: 400, body: '{"code":"malformed","fields":[": not valid JSON:"]}' });
      c.write(post('{"n":1}'));
      expect(await c.next()).toEqual({ status: 200, body: '{"value":{"n":1}}' });
    });
  });
});

describe("readJsonBody: duplicate keys and nesting", () => {
  it("refuses a repeated key (400 malformed naming its path) instead of keeping the last value", async () => {
    await onConnection(async (c) => {
      c.write(post('{"region":"EU","region":"NA"}'));
      expect(await c.next()).toEqual({ status: 400, body: '{"code":"malformed","fields":["region: the key appears"]}' });
      c.write(post('{"a":[{"k":1},{"k":1,"\\u006b":2}]}', "/big"));
      expect(await c.next()).toEqual({ status: 400, body: '{"code":"malformed","fields":["a.1.k: the key appears"]}' });
      c.write(post('{"a":{"k":1},"b":{"k":1}}'));
      expect(await c.next()).toEqual({ status: 200, body: '{"value":{"a":{"k":1},"b":{"k":1}}}' });
    });
  });

  it("refuses nesting past the limit within the size limit, read in pieces, and the connection stays usable", async () => {
    await onConnection(async (c) => {
      // 4 million levels in 8 MB: valid JSON that JSON.parse would take (and its walkers overflow on).
      const deep = "[".repeat(4_000_000) + "]".repeat(4_000_000);
      const request = post(deep, "/big");
      for (let at = 0; at < request.length; at += 256 * 1024) c.write(request.slice(at, at + 256 * 1024));
      expect(await c.next()).toEqual({ status: 400, body: '{"code":"malformed","fields":[": nests objects and"]}' });
      const ok = "[".repeat(64) + "]".repeat(64);
      c.write(post(ok, "/big"));
      expect((await c.next()).status).toBe(200);
      c.write(post("[".repeat(65) + "]".repeat(65), "/big"));
      expect(await c.next()).toEqual({ status: 400, body: '{"code":"malformed","fields":[": nests objects and"]}' });
    });
  });

  it("refuses more keys and array elements than the limit (413) before parsing them", async () => {
    await onConnection(async (c) => {
      const attributes = Object.fromEntries(Array.from({ length: 87_000 }, (_, i) => [`k${i}`, "v"]));
      c.write(post(JSON.stringify({ region: "EU", attributes }), "/big"));
      expect(await c.next()).toEqual({ status: 413, body: '{"code":"too_many_members"}' });
      c.write(post(JSON.stringify({ attributes: Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, "v"])) }), "/big"));
      expect((await c.next()).status).toBe(200);
    });
  });
});

describe("a client that aborts its body", () => {
  it("is not logged as an unexpected error", async () => {
    let settled!: () => void;
    const done = new Promise<void>((r) => (settled = r));
    const fast = createFastPath([
      {
        method: "POST",
        path: "/api/v1/echo",
        handler: async (req, res) => {
          res.once("close", () => setTimeout(settled, 50));
          const value = await readJsonBody(req, 1024);
          res.end(JSON.stringify(value));
        },
      },
    ]);
    const s = http.createServer((req, res) => void fast(req, res));
    s.listen(0, "127.0.0.1");
    await once(s, "listening");
    const stderr = vi.spyOn(process.stderr, "write");
    try {
      const socket = net.connect((s.address() as AddressInfo).port, "127.0.0.1");
      await once(socket, "connect");
      socket.write('POST /api/v1/echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":');
      await new Promise((r) => setTimeout(r, 50));
      socket.destroy();
      await done;
      expect(stderr.mock.calls.map((c) => String(c[0])).filter((line) => line.includes("unexpected error"))).toEqual([]);
    } finally {
      stderr.mockRestore();
      s.close();
    }
  });
});
