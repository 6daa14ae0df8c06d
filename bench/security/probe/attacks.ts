import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { TAttackerHost } from "./attacker-host";
import { SECRET_ATTACKS } from "./attacks-secrets";
import { OUTBOUND_ATTACKS } from "./attacks-outbound";
import { TENANCY_ATTACKS } from "./attacks-tenancy";
import { errorCode, healthStall, holdSocket, request, type TAnswer } from "./http";

/**
 * The attack review's findings (security issue items 1-17), each tried against a running
 * production-mode server the way the reviewer tried it. An attack returns what it observed and
 * whether that is what a closed hole looks like.
 */
export type TProbeContext = {
  base: string;
  port: number;
  apiKey: string;
  /** The attacker's https host (attacker-host.ts): the server trusts its CA and may reach it. */
  attacker: TAttackerHost;
  /** Sign-in for the accounts the probe set up (admin from the environment, one per role). */
  cookieOf(role: TProbeRole): Promise<string>;
  users: Record<TProbeRole, { email: string; password: string; id: string }>;
  /** Everything the server printed so far. */
  serverOutput(): string;
  /** Runs `npm run audit:verify` against the server's database; exit code and output. */
  verifyAudit(): Promise<{ code: number; output: string }>;
  /** Rewrites audit entry `seq` and recomputes every later hash with the product's own function. */
  rewriteAuditChain(seq: number): Promise<void>;
  /** Deletes the newest `n` audit rows; returns what the database said. */
  deleteAuditTail(n: number): Promise<string>;
};

export type TProbeRole = "admin" | "admin2" | "policy_author" | "on_call" | "approver" | "compliance";
export type TOutcome = { observed: string; ok: boolean };
export type TAttack = { item: number | string; attack: string; expected: string; run(ctx: TProbeContext): Promise<TOutcome> };

const json = { "content-type": "application/json" };
const withOrigin = (ctx: TProbeContext, cookie?: string) => ({ ...json, origin: ctx.base, ...(cookie ? { cookie } : {}) });
const bearer = (ctx: TProbeContext, key = ctx.apiKey) => ({ ...json, authorization: `Bearer ${key}` });
const seen = (a: TAnswer) => `${a.status}${errorCode(a) ? ` ${errorCode(a)}` : ""}`;
/** Time to the first byte of the answer; null when none came. */
const ms = (t: number | null) => (t === null ? "no answer" : `${Math.round(t)} ms`);

function consoleRoutes(): string[] {
  const out: string[] = [];
  const walk = (dir: string, url: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full, name.startsWith("(") ? url : `${url}/${name}`);
      else if (name === "page.tsx") out.push(url || "/");
    }
  };
  walk(path.join(process.cwd(), "app", "(console)"), "");
  return out.map((r) => r.replaceAll("[id]", "00000000-0000-4000-8000-000000000000"));
}

async function decide(ctx: TProbeContext, body: string, key?: string): Promise<TAnswer> {
  return request(ctx.base, "/api/v1/decide", { headers: bearer(ctx, key), body });
}

/** LLM_CHAT's active factor list with `fallback_policy: queue`, through draft, review and activation; an error text or null. */
async function activateQueueingPolicy(ctx: TProbeContext): Promise<string | null> {
  const author = withOrigin(ctx, await ctx.cookieOf("policy_author"));
  const approver = withOrigin(ctx, await ctx.cookieOf("approver"));
  const versions = JSON.parse((await request(ctx.base, "/api/control/factor-lists?operation=LLM_CHAT", { headers: author })).body) as {
    versions: { id: string; status: string }[];
  };
  const active = versions.versions.find((v) => v.status === "active");
  if (!active) return "LLM_CHAT has no active factor list";
  const yaml = (await request(ctx.base, `/api/control/factor-lists/${active.id}/yaml`, { headers: author })).body.replace(
    /^fallback_policy: .*$/m,
    "fallback_policy: queue",
  );
  const draft = await request(ctx.base, "/api/control/factor-lists", {
    headers: author,
    body: JSON.stringify({ yaml, changeNote: "probe: queue when nothing is eligible" }),
  });
  if (draft.status !== 201) return `draft: ${seen(draft)}`;
  const id = (JSON.parse(draft.body) as { version: { id: string } }).version.id;
  for (const [step, headers] of [
    ["submit", author],
    ["approve", approver],
    ["activate", approver],
  ] as const) {
    const a = await request(ctx.base, `/api/control/factor-lists/${id}/${step}`, { headers, body: "{}" });
    if (a.status !== 200) return `${step}: ${seen(a)} ${a.body.slice(0, 120)}`;
  }
  return null;
}

export const ATTACKS: readonly TAttack[] = [
  {
    item: 1,
    attack: "GET every console page signed out (HTML, RSC, prefetch)",
    expected: "307 to /login, empty body",
    async run(ctx) {
      const leaks: string[] = [];
      let n = 0;
      for (const route of consoleRoutes()) {
        for (const headers of [{}, { rsc: "1" }, { rsc: "1", "next-router-prefetch": "1" }] as Record<string, string>[]) {
          const a = await request(ctx.base, route, { headers });
          n++;
          if (a.status !== 307 || a.body.length > 0 || !String(a.headers.location ?? "").startsWith("/login"))
            leaks.push(`${route} ${a.status} ${a.body.length} B`);
        }
      }
      return {
        observed: leaks.length === 0 ? `${n} requests: all 307, 0 bytes` : `${leaks.length}/${n} rendered: ${leaks.slice(0, 3).join("; ")}`,
        ok: leaks.length === 0,
      };
    },
  },
  {
    item: 2,
    attack: "admin grants itself policy_author + approver",
    expected: "refused",
    async run(ctx) {
      const a = await request(ctx.base, `/api/control/users/${ctx.users.admin.id}/roles`, {
        method: "PUT",
        headers: withOrigin(ctx, await ctx.cookieOf("admin")),
        body: JSON.stringify({ roles: ["admin", "policy_author", "approver"] }),
      });
      return { observed: seen(a), ok: a.status === 403 || a.status === 422 };
    },
  },
  {
    item: 2,
    attack: "with two admins, one grants approver to a puppet account",
    expected: "pending until the other admin confirms",
    async run(ctx) {
      const cookie = await ctx.cookieOf("admin");
      const created = await request(ctx.base, "/api/control/users", {
        headers: withOrigin(ctx, cookie),
        body: JSON.stringify({ email: `puppet-${Date.now()}@probe.test`, name: "Puppet", password: "puppet-password-123", roles: ["approver"] }),
      });
      if (created.status !== 201 && created.status !== 202) return { observed: `create: ${seen(created)}`, ok: false };
      const body = JSON.parse(created.body) as { user?: { roles?: string[] }; roles?: string[] };
      const granted = body.user?.roles ?? body.roles ?? [];
      return { observed: `${created.status}, roles in effect: [${granted.join(", ")}]`, ok: !granted.includes("approver") };
    },
  },
  {
    item: 3,
    attack: "sign in with next=/\\t/attacker.invalid/phish",
    expected: "redirect stays on this origin",
    async run(ctx) {
      const page = await request(ctx.base, "/login");
      const action = /name="(\$ACTION_ID_[0-9a-f]+)"/.exec(page.body)?.[1];
      if (!action) return { observed: "no server-action form found on /login", ok: false };
      const form = new FormData();
      form.set(action, "");
      form.set("email", ctx.users.on_call.email);
      form.set("password", ctx.users.on_call.password);
      form.set("next", "/\t/attacker.invalid/phish");
      const encoded = new Response(form);
      const body = Buffer.from(await encoded.arrayBuffer());
      const a = await request(ctx.base, "/login", { headers: { origin: ctx.base, "content-type": encoded.headers.get("content-type")! }, body });
      const location = String(a.headers.location ?? "");
      // What a browser does with it: tabs and newlines are dropped before resolving.
      const target = new URL(location.replace(/[\t\n\r]/g, ""), ctx.base);
      return { observed: `${a.status} Location ${JSON.stringify(location)}`, ok: a.status >= 300 && a.status < 400 && target.origin === ctx.base };
    },
  },
  {
    item: 4,
    attack: "30 wrong passwords for one account",
    expected: "429 + Retry-After",
    async run(ctx) {
      const statuses = new Map<number, number>();
      let retryAfter = "";
      for (let i = 0; i < 30; i++) {
        const a = await request(ctx.base, "/api/auth/login", {
          headers: withOrigin(ctx),
          body: JSON.stringify({ email: ctx.users.compliance.email, password: `wrong-${i}-password` }),
        });
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status === 429) retryAfter = String(a.headers["retry-after"] ?? "");
      }
      const summary = [...statuses].map(([s, n]) => `${n}×${s}`).join(", ");
      return { observed: `${summary}; Retry-After ${retryAfter || "none"}`, ok: (statuses.get(429) ?? 0) > 0 && retryAfter !== "" };
    },
  },
  {
    item: 5,
    attack: "400 failed sign-ins at concurrency 50, 6 override creations meanwhile",
    expected: "0×5xx; overrides created (201), p99 < 1 s",
    async run(ctx) {
      const onCall = await ctx.cookieOf("on_call");
      let next = 0;
      const statuses: number[] = [];
      const flood = Array.from({ length: 50 }, async () => {
        while (next < 400) {
          const i = next++;
          const a = await request(ctx.base, "/api/auth/login", {
            headers: withOrigin(ctx),
            body: JSON.stringify({ email: `nobody-${i % 40}@probe.test`, password: "wrong-password-x" }),
          });
          statuses.push(a.status);
        }
      });
      const overrides = Array.from({ length: 6 }, (_, i) =>
        request(ctx.base, "/api/control/overrides", {
          headers: withOrigin(ctx, onCall),
          // Six distinct valid scopes, so each creation writes its row and its audit entry.
          body: JSON.stringify({
            kind: "provider_kill",
            providerKey: ["llm_openai", "llm_anthropic", "llm_gemini"][i % 3],
            operationKey: "LLM_CHAT",
            region: i < 3 ? "EU" : "NA",
            reason: `probe flood ${i}`,
          }),
        }),
      );
      const [done] = await Promise.all([Promise.all(overrides), Promise.all(flood)]);
      const fivexx = statuses.filter((s) => s >= 500 || s === 0).length + done.filter((a) => a.status >= 500).length;
      const ms = done.map((a) => a.ms).sort((x, y) => x - y);
      const worst = ms[ms.length - 1] ?? 0;
      return {
        observed: `${fivexx}×5xx; overrides ${done.map((a) => a.status).join(",")}, slowest ${worst.toFixed(0)} ms`,
        ok: fivexx === 0 && worst < 1000 && done.every((a) => a.status === 201),
      };
    },
  },
  {
    item: 6,
    attack: "200 MB sign-in body; 100 MB factor-list import",
    expected: "413 at once",
    async run(ctx) {
      const login = await holdSocket(
        ctx.port,
        `POST /api/auth/login HTTP/1.1\r\nhost: 127.0.0.1:${ctx.port}\r\norigin: ${ctx.base}\r\ncontent-type: application/json\r\ncontent-length: ${200 * 1024 ** 2}\r\n\r\n{"email":"`,
        { giveUpMs: 20_000 },
      );
      const importAttempt = await holdSocket(
        ctx.port,
        `POST /api/control/factor-lists HTTP/1.1\r\nhost: 127.0.0.1:${ctx.port}\r\norigin: ${ctx.base}\r\ncookie: ${await ctx.cookieOf("policy_author")}\r\ncontent-type: application/yaml\r\ncontent-length: ${100 * 1024 ** 2}\r\n\r\n# `,
        { giveUpMs: 20_000 },
      );
      const status = (s: { answer: string }) => /^HTTP\/1.1 (\d+)/.exec(s.answer)?.[1] ?? "none";
      return {
        observed: `login ${status(login)} after ${ms(login.answerMs)}; import ${status(importAttempt)} after ${ms(importAttempt.answerMs)}`,
        ok: status(login) === "413" && status(importAttempt) === "413" && (login.answerMs ?? Infinity) < 1_000 && (importAttempt.answerMs ?? Infinity) < 1_000,
      };
    },
  },
  {
    item: 7,
    attack: "rewrite audit entry 2 and recompute every later hash",
    expected: "audit:verify fails",
    async run(ctx) {
      await ctx.rewriteAuditChain(2);
      const v = await ctx.verifyAudit();
      return { observed: `exit ${v.code}: ${v.output.trim().split("\n").pop()?.slice(0, 90) ?? ""}`, ok: v.code !== 0 };
    },
  },
  {
    item: 7,
    attack: "delete the newest audit rows as the application's role",
    expected: "the database refuses",
    async run(ctx) {
      const said = await ctx.deleteAuditTail(3);
      return { observed: said.slice(0, 90), ok: /refus|not allowed|append-only|permission|denied/i.test(said) };
    },
  },
  {
    item: 8,
    attack: "read security headers on /login and /api/v1/health",
    expected: "CSP with nonce, frame-ancestors none, nosniff",
    async run(ctx) {
      const page = await request(ctx.base, "/login");
      const api = await request(ctx.base, "/api/v1/health");
      const csp = String(page.headers["content-security-policy"] ?? "");
      const missing = [
        /'nonce-/.test(csp) ? null : "page CSP nonce",
        /frame-ancestors 'none'/.test(csp) ? null : "frame-ancestors",
        page.headers["x-frame-options"] === "DENY" ? null : "X-Frame-Options",
        page.headers["x-content-type-options"] === "nosniff" ? null : "page nosniff",
        page.headers["referrer-policy"] ? null : "Referrer-Policy",
        api.headers["x-content-type-options"] === "nosniff" ? null : "API nosniff",
        /frame-ancestors 'none'/.test(String(api.headers["content-security-policy"] ?? "")) ? null : "API CSP",
      ].filter(Boolean);
      return { observed: missing.length === 0 ? "all present" : `missing: ${missing.join(", ")}`, ok: missing.length === 0 };
    },
  },
  {
    item: 9,
    attack: "import 100 KB of '[' as a factor list (3 at once)",
    expected: "422 fast; /health unaffected",
    async run(ctx) {
      const cookie = await ctx.cookieOf("policy_author");
      const {
        result: answers,
        addedMs,
        baselineMs,
      } = await healthStall(ctx.base, () =>
        Promise.all(
          [0, 1, 2].map(() =>
            request(ctx.base, "/api/control/factor-lists", {
              headers: { ...withOrigin(ctx, cookie), "content-type": "application/yaml" },
              body: "[".repeat(100_000),
            }),
          ),
        ),
      );
      const slowest = Math.max(...answers.map((a) => a.ms));
      return {
        observed: `${answers.map((a) => a.status).join(",")} in ≤ ${slowest.toFixed(0)} ms; /health +${addedMs.toFixed(0)} ms (baseline worst ${baselineMs.toFixed(0)} ms)`,
        ok: answers.every((a) => a.status === 422) && addedMs < 100,
      };
    },
  },
  {
    item: 10,
    attack: "read another key's execute job",
    expected: "404",
    async run(ctx) {
      const admin = await ctx.cookieOf("admin");
      const keys: string[] = [];
      for (const name of ["probe-owner", "probe-other"]) {
        const a = await request(ctx.base, "/api/control/api-keys", {
          headers: withOrigin(ctx, admin),
          body: JSON.stringify({ name, scopes: ["decide", "outcomes", "read"] }),
        });
        if (a.status !== 201) return { observed: `create key: ${seen(a)}`, ok: false };
        keys.push((JSON.parse(a.body) as { key: string }).key);
      }
      // Execute queues a job only when nothing is eligible under a queueing fallback: put one
      // live through review, then take every LLM provider out.
      const queueing = await activateQueueingPolicy(ctx);
      if (queueing) return { observed: queueing, ok: false };
      const onCall = await ctx.cookieOf("on_call");
      for (const provider of ["llm_openai", "llm_anthropic", "llm_gemini"]) {
        const kill = await request(ctx.base, "/api/control/overrides", {
          headers: withOrigin(ctx, onCall),
          body: JSON.stringify({
            kind: "provider_kill",
            providerKey: provider,
            operationKey: "LLM_CHAT",
            reason: "probe: nothing eligible, so execute queues",
          }),
        });
        if (kill.status !== 201) return { observed: `kill ${provider}: ${seen(kill)}`, ok: false };
      }
      let queued: TAnswer | null = null;
      for (let i = 0; i < 50 && queued?.status !== 202; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 200));
        queued = await request(ctx.base, "/api/v1/execute/LLM_CHAT", {
          headers: bearer(ctx, keys[0]),
          body: JSON.stringify({ region: "EU", requestId: `probe-job-${i}-${Date.now()}`, input: { messages: [{ role: "user", content: "hi" }] } }),
        });
      }
      const jobId = queued?.status === 202 ? (JSON.parse(queued.body) as { jobId?: string }).jobId : undefined;
      if (!jobId) return { observed: `no job queued (execute ${queued ? seen(queued) : "not sent"})`, ok: false };
      const own = await request(ctx.base, `/api/v1/execute/jobs/${jobId}`, { headers: bearer(ctx, keys[0]) });
      const other = await request(ctx.base, `/api/v1/execute/jobs/${jobId}`, { headers: bearer(ctx, keys[1]) });
      return { observed: `owner ${own.status}, other key ${other.status}`, ok: own.status === 200 && other.status === 404 };
    },
  },
  {
    item: 11,
    attack: "override with region '<img src=x onerror=alert(1)>'",
    expected: "422 naming region",
    async run(ctx) {
      const a = await request(ctx.base, "/api/control/overrides", {
        headers: withOrigin(ctx, await ctx.cookieOf("on_call")),
        body: JSON.stringify({ kind: "routing_kill_switch", operationKey: "SEND_SMS", region: "<img src=x onerror=alert(1)>", reason: "probe" }),
      });
      return { observed: `${seen(a)}${a.body.includes('"region"') ? " (names region)" : ""}`, ok: a.status === 422 && a.body.includes("region") };
    },
  },
  {
    item: 12,
    attack: "server action without Origin; with Sec-Fetch-Site: cross-site",
    expected: "403 both",
    async run(ctx) {
      const headers = { "next-action": "0".repeat(42), "content-type": "text/plain;charset=UTF-8" };
      const none = await request(ctx.base, "/login", { headers, body: "[]" });
      const cross = await request(ctx.base, "/login", { headers: { ...headers, origin: ctx.base, "sec-fetch-site": "cross-site" }, body: "[]" });
      return { observed: `${seen(none)}; ${seen(cross)}`, ok: none.status === 403 && cross.status === 403 };
    },
  },
  {
    item: 13,
    attack: 'decide with "region" twice (EU, then NA)',
    expected: "400 naming the key",
    async run(ctx) {
      const a = await decide(ctx, `{"operation":"SEND_SMS","region":"EU","requestId":"probe-dup-${Date.now()}","region":"NA"}`);
      return { observed: `${seen(a)}${a.body.includes("region") ? " (names region)" : ""}`, ok: a.status === 400 && a.body.includes("region") };
    },
  },
  {
    item: 14,
    attack: "one requestId, 50 concurrent decides mixing EU and NA",
    expected: "one region decided, the other 422 idempotency_key_reused",
    async run(ctx) {
      const id = `probe-idem-${Date.now()}`;
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const region = i % 2 === 0 ? "EU" : "NA";
          return decide(ctx, JSON.stringify({ operation: "LLM_CHAT", region, requestId: id })).then((a) => ({ region, a }));
        }),
      );
      const wrong = answers.filter(({ region, a }) => a.status === 200 && (JSON.parse(a.body) as { region?: string }).region !== region).length;
      const reused = answers.filter(({ a }) => a.status === 422 && errorCode(a) === "idempotency_key_reused").length;
      const ok200 = answers.filter(({ a }) => a.status === 200).length;
      return { observed: `${ok200}×200, ${reused}×422, ${wrong} answered for another region`, ok: wrong === 0 && reused === 25 && ok200 === 25 };
    },
  },
  {
    item: 15,
    attack: "body trickled at 1 byte/s; headers never finished",
    expected: "closed within seconds (408)",
    async run(ctx) {
      const [body, head] = await Promise.all([
        holdSocket(
          ctx.port,
          `POST /api/v1/decide HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ctx.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n`,
          { trickle: "{".repeat(400), everyMs: 1000, giveUpMs: 60_000 },
        ),
        holdSocket(ctx.port, `GET /api/v1/health HTTP/1.1\r\nhost: x\r\nx-slow: `, { trickle: "a".repeat(400), everyMs: 1000, giveUpMs: 60_000 }),
      ]);
      const status = (s: { answer: string }) => /^HTTP\/1.1 (\d+)/.exec(s.answer)?.[1] ?? "none";
      return {
        observed: `body held ${(body.openMs / 1000).toFixed(1)} s (${status(body)}); headers ${(head.openMs / 1000).toFixed(1)} s (${status(head)})`,
        ok: body.openMs < 20_000 && head.openMs < 20_000,
      };
    },
  },
  {
    item: 16,
    attack: "8 MB array nested 4M deep to /execute; 1M deep to /outcomes",
    expected: "400 at once; /health stall < 100 ms",
    async run(ctx) {
      const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
      const { result, addedMs, baselineMs } = await healthStall(ctx.base, async () => ({
        execute: await request(ctx.base, "/api/v1/execute/LLM_CHAT", {
          headers: bearer(ctx),
          body: `{"region":"EU","input":${deep(4_000_000)}}`,
          timeoutMs: 60_000,
        }),
        outcomes: await request(ctx.base, "/api/v1/outcomes", { headers: bearer(ctx), body: `{"outcomes":${deep(1_000_000)}}`, timeoutMs: 60_000 }),
      }));
      const { execute, outcomes } = result;
      return {
        observed: `execute ${seen(execute)} in ${execute.ms.toFixed(0)} ms, outcomes ${seen(outcomes)} in ${outcomes.ms.toFixed(0)} ms; /health +${addedMs.toFixed(0)} ms (baseline worst ${baselineMs.toFixed(0)} ms)`,
        ok: execute.status === 400 && outcomes.status === 400 && addedMs < 100,
      };
    },
  },
  {
    item: 17,
    attack: "abort a decide body half-way",
    expected: "no 'unexpected error' in the server log",
    async run(ctx) {
      const before = ctx.serverOutput().length;
      await holdSocket(
        ctx.port,
        `POST /api/v1/decide HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ctx.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"operation":`,
        { giveUpMs: 5_000, abortAfterMs: 200 },
      );
      await new Promise((r) => setTimeout(r, 500));
      const logged = ctx.serverOutput().slice(before);
      const bad = /unexpected error/.test(logged);
      return { observed: bad ? `logged: ${logged.trim().slice(0, 80)}` : "no error logged", ok: !bad };
    },
  },
  ...SECRET_ATTACKS,
  ...OUTBOUND_ATTACKS,
  ...TENANCY_ATTACKS,
];
