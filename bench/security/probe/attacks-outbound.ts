import { lookup } from "node:dns/promises";
import net from "node:net";
import { hostname } from "node:os";
import type { TAttack, TProbeContext } from "./attacks";
import { errorCode, request, type TAnswer } from "./http";

/**
 * Issue 35 items 7 and 8, as the reviewer tried them: adapters aimed at the server's own network
 * in every spelling, transport errors that told the caller which ports were open, a redirect
 * passed on, and path inputs that climbed out of the base URL. The adapters are provider_A's
 * (SEND_SMS, no credential), so nothing here depends on the secrets attacks.
 */
const json = { "content-type": "application/json" };
const seen = (a: TAnswer) => `${a.status}${errorCode(a) ? ` ${errorCode(a)}` : ""}`;
const asUser = (ctx: TProbeContext, cookie: string) => ({ ...json, origin: ctx.base, cookie });
/** What a port scan reads off an answer: transport codes, loopback or private addresses. */
const LEAKS = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EPROTO|EHOSTUNREACH|127\.0\.0\.\d|169\.254\.|socket hang up/;

type TAdapterBody = { kind: "http_json"; baseUrl: string; options: Record<string, unknown> };

/** PUTs provider_A's adapter as admin and, when it is held for a second person, approves it as compliance; an error text or null. */
async function setAdapter(ctx: TProbeContext, adapter: TAdapterBody): Promise<string | null> {
  const put = await request(ctx.base, "/api/control/catalog/providers/provider_A/adapter", {
    method: "PUT",
    headers: asUser(ctx, await ctx.cookieOf("admin")),
    body: JSON.stringify(adapter),
  });
  if (put.status === 202) {
    const id = (JSON.parse(put.body) as { change?: { id?: string } }).change?.id;
    const ok = await request(ctx.base, `/api/control/catalog/changes/${id}/approve`, { headers: asUser(ctx, await ctx.cookieOf("compliance")), body: "{}" });
    if (ok.status !== 200) return `approve: ${seen(ok)} ${ok.body.slice(0, 120)}`;
  } else if (put.status !== 200) return `adapter PUT: ${seen(put)} ${put.body.slice(0, 160)}`;
  // The gateway reloads adapters on the configuration notice; give it a moment.
  await new Promise((r) => setTimeout(r, 1_000));
  return null;
}

function execute(ctx: TProbeContext, region: string, input: Record<string, string>): Promise<TAnswer> {
  return request(ctx.base, "/api/v1/execute/SEND_SMS", {
    headers: { ...json, authorization: `Bearer ${ctx.apiKey}` },
    body: JSON.stringify({ region, input }),
  });
}

/** A name of this machine that resolves to loopback (and is not refused by name at write time), or null. */
async function localName(): Promise<string | null> {
  for (const name of [hostname(), "localhost.localdomain", "ip6-localhost"]) {
    const addresses = await lookup(name, { all: true }).catch(() => []);
    if (addresses.length > 0 && addresses.every((a) => a.address.startsWith("127.") || a.address === "::1")) return name;
  }
  return null;
}

/** A listener on 127.0.0.1 that counts connections: the port an SSRF would scan. */
async function countingListener(): Promise<{ port: number; connections: () => number; close: () => void }> {
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections, close: () => server.close() };
}

const SSRF_FORMS = (port: number) => [
  `https://127.0.0.1:${port}`,
  `https://[::1]:${port}`,
  "https://2130706433/",
  "https://0x7f000001/",
  "https://0177.0.0.1/",
  "https://[::ffff:127.0.0.1]/",
  "https://169.254.169.254/latest/meta-data/",
  "https://10.0.0.1/",
  "https://[fd00::1]/",
  "https://metadata.google.internal/computeMetadata/v1/",
  "https://localhost/",
];

export const OUTBOUND_ATTACKS: readonly TAttack[] = [
  {
    item: "35.7",
    attack:
      "admin PUTs provider_A's adapter at loopback, [::1], 2130706433, 0x7f000001, 0177.0.0.1, [::ffff:127.0.0.1], 169.254.169.254, 10.0.0.1, [fd00::1], metadata.google.internal, localhost",
    expected: "422 naming baseUrl, each",
    async run(ctx) {
      const headers = asUser(ctx, await ctx.cookieOf("admin"));
      const accepted: string[] = [];
      const forms = SSRF_FORMS(ctx.port);
      for (const baseUrl of forms) {
        const a = await request(ctx.base, "/api/control/catalog/providers/provider_A/adapter", {
          method: "PUT",
          headers,
          body: JSON.stringify({ kind: "http_json", baseUrl, options: {} }),
        });
        if (!(a.status === 422 && a.body.includes('"path":"baseUrl"'))) accepted.push(`${baseUrl} ${seen(a)}`);
      }
      return {
        observed: accepted.length === 0 ? `${forms.length}/${forms.length} refused with 422 on baseUrl` : `accepted: ${accepted.join("; ")}`,
        ok: accepted.length === 0,
      };
    },
  },
  {
    item: "35.8",
    attack: "http_json base <attacker>/tenant/acme, path /users/{{input.a}}/{{input.b}}/sms; a=b='..', then %2f, %252e%252e, \\ and an empty value",
    expected: "422 naming input.a or input.b, the attacker's host records nothing; plain values reach /tenant/acme/users/x/y/sms",
    async run(ctx) {
      const problem = await setAdapter(ctx, {
        kind: "http_json",
        baseUrl: `${ctx.attacker.url}/tenant/acme`,
        options: { path: "/users/{{input.a}}/{{input.b}}/sms" },
      });
      if (problem) return { observed: problem, ok: false };
      ctx.attacker.clear();
      const tries: Array<Record<string, string>> = [
        { a: "..", b: ".." },
        { a: "x%2f..%2f..", b: "y" },
        { a: "%252e%252e", b: "y" },
        { a: "x", b: "..\\..\\admin" },
        { a: "x", b: "" },
      ];
      const answers: string[] = [];
      let refused = 0;
      for (const input of tries) {
        const a = await execute(ctx, "APAC", input);
        const field = (JSON.parse(a.body) as { error?: { fields?: { path: string }[] } }).error?.fields?.[0]?.path ?? "";
        if (a.status === 422 && /^input\.[ab]$/.test(field)) refused++;
        answers.push(`${seen(a)} ${field}`);
      }
      const strays = ctx.attacker.requests.length;
      const plain = await execute(ctx, "APAC", { a: "x", b: "y" });
      const paths = ctx.attacker.requests.map((r) => r.path);
      return {
        observed: `${refused}/${tries.length} refused (${answers.join(", ")}); attacker recorded ${strays} before the plain call; plain ${seen(plain)} → ${paths.join(", ") || "nothing"}`,
        ok: refused === tries.length && strays === 0 && paths.length === 1 && paths[0] === "/tenant/acme/users/x/y/sms",
      };
    },
  },
  {
    item: "35.7",
    attack: "adapter at this host's own name (resolves to 127.0.0.1, so the URL text passes) aimed at a listener on 127.0.0.1; execute",
    expected: "write accepted (a name); the call refused when it resolves: generic 503, no connection, the server log names loopback",
    async run(ctx) {
      const name = await localName();
      if (!name) return { observed: "not tried: no local name here resolves to loopback only", ok: true };
      const listener = await countingListener();
      try {
        const before = ctx.serverOutput().length;
        const problem = await setAdapter(ctx, { kind: "http_json", baseUrl: `https://${name}:${listener.port}`, options: {} });
        if (problem) return { observed: problem, ok: false };
        const a = await execute(ctx, "NA", { to: "probe" });
        const logged = /is a loopback address/.test(ctx.serverOutput().slice(before));
        return {
          observed: `${name}: execute ${seen(a)}; listener saw ${listener.connections()} connections; answer ${LEAKS.test(a.body) ? "leaks transport detail" : "generic"}; log ${logged ? "names loopback" : "silent"}`,
          ok: a.status >= 500 && listener.connections() === 0 && !LEAKS.test(a.body) && logged,
        };
      } finally {
        listener.close();
      }
    },
  },
  {
    item: "35.7",
    attack: "execute through an allowed host's closed port, then through a provider answering 302 Location: http://169.254.169.254/",
    expected: "503 with a generic attempt detail each (no ECONNREFUSED, no address); never a 302",
    async run(ctx) {
      const closed = await new Promise<number>((resolve) => {
        const s = net.createServer().listen(0, ctx.attacker.host, () => {
          const port = (s.address() as net.AddressInfo).port;
          s.close(() => resolve(port));
        });
      });
      const problem = await setAdapter(ctx, { kind: "http_json", baseUrl: `https://${ctx.attacker.host}:${closed}`, options: {} });
      if (problem) return { observed: problem, ok: false };
      const refusedPort = await execute(ctx, "NA", { to: "probe" });
      const redirecting = await setAdapter(ctx, { kind: "http_json", baseUrl: ctx.attacker.url, options: {} });
      if (redirecting) return { observed: redirecting, ok: false };
      ctx.attacker.answer(() => ({ status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } }));
      const redirect = await execute(ctx, "NA", { to: "probe" });
      ctx.attacker.answer(() => ({ status: 200, headers: { "content-type": "application/json" }, body: '{"ok":true}' }));
      return {
        observed: `closed port: ${seen(refusedPort)}${LEAKS.test(refusedPort.body) ? " (leaks transport detail)" : " generic"}; 302: ${seen(redirect)}${redirect.body.includes("169.254") ? " (passes the Location on)" : ""}`,
        ok: refusedPort.status >= 500 && !LEAKS.test(refusedPort.body) && redirect.status >= 500 && !redirect.body.includes("169.254"),
      };
    },
  },
];
