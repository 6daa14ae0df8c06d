import http from "node:http";
import type { LookupAddress } from "node:dns";
import type net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { addressPolicy, forbiddenAddress, parseCidrs } from "./address-policy";
import { guardedLookup } from "./guarded-lookup";
import { createHttp1Client, type Http1Error } from "./http1-client";

const strict = addressPolicy({ allowLoopback: false });
const closers: Array<() => void> = [];
afterEach(() => {
  while (closers.length > 0) closers.pop()!();
});

describe("forbiddenAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["169.254.169.254", "cloud metadata"],
    ["fd00:ec2::254", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["10.0.0.1", "private (RFC 1918)"],
    ["172.16.5.4", "private (RFC 1918)"],
    ["192.168.1.1", "private (RFC 1918)"],
    ["::ffff:192.168.1.1", "private (RFC 1918)"],
    ["fd12:3456::1", "unique-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["0.0.0.0", "this network"],
    ["::", "this network"],
    ["224.0.0.1", "multicast"],
  ])("refuses %s (%s)", (ip, label) => {
    expect(forbiddenAddress(ip, strict)).toBe(label);
  });

  it.each(["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "172.32.0.1"])("allows the public address %s", (ip) => {
    expect(forbiddenAddress(ip, strict)).toBeNull();
  });

  it("opens loopback only where allowed, and operator CIDRs exactly", () => {
    expect(forbiddenAddress("127.0.0.1", addressPolicy({ allowLoopback: true }))).toBeNull();
    expect(forbiddenAddress("10.0.0.1", addressPolicy({ allowLoopback: true }))).toBe("private (RFC 1918)");
    const ops = addressPolicy({ allowLoopback: false, allowedNetworks: "10.20.0.0/16, fd00:1::/32, 127.0.0.2" });
    expect([forbiddenAddress("10.20.3.4", ops), forbiddenAddress("fd00:1::9", ops), forbiddenAddress("127.0.0.2", ops)]).toEqual([null, null, null]);
    expect([forbiddenAddress("10.21.0.1", ops), forbiddenAddress("127.0.0.1", ops)]).toEqual(["private (RFC 1918)", "loopback"]);
    expect(parseCidrs("10.0.0.0/33, nope, 1.2.3.4/x, ::/129, 1.2.3.4/8").bad).toEqual(["10.0.0.0/33", "nope", "1.2.3.4/x", "::/129"]);
  });
});

/** A resolver that answers `answers` in turn: the first call public, the next loopback (DNS rebinding). */
function rebinding(answers: string[][]) {
  let n = 0;
  return (_host: string, _opts: unknown, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    const list = answers[Math.min(n++, answers.length - 1)]!;
    cb(
      null,
      list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  };
}

function lookupOnce(lookup: net.LookupFunction, host: string, all: boolean): Promise<{ err: (Error & { code?: string }) | null; result: unknown }> {
  return new Promise((resolve) => lookup(host, { all }, (err, result) => resolve({ err: err as (Error & { code?: string }) | null, result })));
}

describe("guardedLookup", () => {
  it("checks every address a name resolves to, on each lookup: a rebinding to loopback is refused", async () => {
    const lookup = guardedLookup(() => strict, rebinding([["93.184.216.34"], ["93.184.216.34", "127.0.0.1"]]));
    expect(await lookupOnce(lookup, "api.provider.test", false)).toEqual({ err: null, result: "93.184.216.34" });
    const second = await lookupOnce(lookup, "api.provider.test", true);
    expect(second.err?.message).toMatch(/api\.provider\.test \(127\.0\.0\.1\) is a loopback address/);
    expect(second.err?.code).toBe("ERR_PROVIDER_ADDRESS_FORBIDDEN");
  });

  it("refuses the metadata service's names before resolving them", async () => {
    const lookup = guardedLookup(() => strict, rebinding([["93.184.216.34"]]));
    expect((await lookupOnce(lookup, "metadata.google.internal", false)).err?.message).toMatch(/cloud metadata/);
  });
});

describe("createHttp1Client with an address policy", () => {
  async function countingServer(): Promise<{ port: number; connections: () => number }> {
    let connections = 0;
    const server = http.createServer((req, res) => res.end("{}"));
    server.on("connection", () => connections++);
    closers.push(() => server.close());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    return { port: (server.address() as net.AddressInfo).port, connections: () => connections };
  }
  const req = (url: string) => ({ url, method: "GET", headers: {}, body: null });
  const timeout = () => new Error("timed out");

  it("refuses loopback by literal IP and by name without connecting; connects once loopback is allowed", async () => {
    const { port, connections } = await countingServer();
    let policy = strict;
    const client = createHttp1Client({ addressPolicy: () => policy });
    closers.push(() => client.close());
    for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]) {
      const err = (await client.request(req(url), 2_000, timeout).catch((e: unknown) => e)) as Http1Error;
      expect(err.code).toBe("ERR_PROVIDER_ADDRESS_FORBIDDEN");
    }
    expect(connections()).toBe(0);
    policy = addressPolicy({ allowLoopback: true });
    expect((await client.request(req(`http://127.0.0.1:${port}/`), 2_000, timeout)).status).toBe(200);
    expect(connections()).toBe(1);
  });
});
