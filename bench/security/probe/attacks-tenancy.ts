import { randomUUID } from "node:crypto";
import { uuidV7At } from "../../../lib/dataplane/decision-id";
import type { TAttack, TProbeContext } from "./attacks";
import { errorCode, request, type TAnswer } from "./http";

/**
 * Issue 35 items 3-6, as the reviewer tried them: services that share one data plane, each with
 * its own key. LLM_CHAT is one team's operation; SEND_EMAIL, with its providers mail_x and
 * mail_y, another's, set up here through the catalogue and a reviewed factor list.
 */
const json = { "content-type": "application/json" };
const seen = (a: TAnswer) => `${a.status}${errorCode(a) ? ` ${errorCode(a)}` : ""}`;
const bearer = (key: string) => ({ ...json, authorization: `Bearer ${key}` });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
type TJson = any;
const body = (a: TAnswer): TJson => {
  try {
    return JSON.parse(a.body);
  } catch {
    return null;
  }
};

/** A governance key made by the probe's admin; its secret and prefix. */
async function keyFor(ctx: TProbeContext, name: string, scopes: string[], operationKeys: string[]): Promise<{ key: string; prefix: string }> {
  const a = await request(ctx.base, "/api/control/api-keys", {
    headers: { ...json, origin: ctx.base, cookie: await ctx.cookieOf("admin") },
    body: JSON.stringify({ name: `${name}-${randomUUID().slice(0, 8)}`, scopes, operationKeys }),
  });
  if (a.status !== 201) throw new Error(`create key ${name}: ${seen(a)}`);
  const key = (body(a) as { key: string }).key;
  return { key, prefix: key.slice(3, 11) };
}

async function decide(ctx: TProbeContext, key: string, operation: string, region: string, requestId: string = randomUUID()): Promise<TAnswer> {
  return request(ctx.base, "/api/v1/decide", { headers: bearer(key), body: JSON.stringify({ operation, region, requestId }) });
}

const EMAIL_POLICY = `operation: SEND_EMAIL
description: probe - another team's operation
providers: [mail_x, mail_y]
refresh_interval_seconds: 30
metric_window_minutes: 5
min_sample_size: 20
fallback_policy: use_secondary_then_degraded_message
gates: [supports_region, credentials_valid, quota_available, circuit_breaker_closed, metric_fresh_or_safe_default]
scores:
  completion_rate_5m: {weight: 0.5, direction: higher}
  p95_latency_5m: {weight: 0.3, direction: lower}
  cost_per_request: {weight: 0.2, direction: lower}
`;

/** SEND_EMAIL with two providers of its own, active and routable; an error text or null. */
async function setUpEmailTeam(ctx: TProbeContext): Promise<string | null> {
  const admin = { ...json, origin: ctx.base, cookie: await ctx.cookieOf("admin") };
  for (const key of ["mail_x", "mail_y"]) {
    const a = await request(ctx.base, "/api/control/catalog/providers", {
      headers: admin,
      body: JSON.stringify({ key, displayName: `Probe ${key}`, regions: ["EU", "NA"] }),
    });
    if (a.status !== 201 && a.status !== 409) return `provider ${key}: ${seen(a)} ${a.body.slice(0, 120)}`;
  }
  const op = await request(ctx.base, "/api/control/catalog/operations", { headers: admin, body: JSON.stringify({ key: "SEND_EMAIL", description: "probe" }) });
  if (op.status !== 201 && op.status !== 409) return `operation: ${seen(op)} ${op.body.slice(0, 120)}`;
  const author = { ...json, origin: ctx.base, cookie: await ctx.cookieOf("policy_author") };
  const approver = { ...json, origin: ctx.base, cookie: await ctx.cookieOf("approver") };
  const compliance = { ...json, origin: ctx.base, cookie: await ctx.cookieOf("compliance") };
  const draft = await request(ctx.base, "/api/control/factor-lists", {
    headers: author,
    body: JSON.stringify({ yaml: EMAIL_POLICY, changeNote: "probe: email team" }),
  });
  if (draft.status !== 201) return `draft: ${seen(draft)} ${draft.body.slice(0, 160)}`;
  const id = (body(draft) as { version: { id: string } }).version.id;
  // A first version sets gates and regional rules: compliance reviews it besides the approver.
  for (const [step, headers] of [
    ["submit", author],
    ["approve", approver],
    ["approve-compliance", compliance],
    ["activate", approver],
  ] as const) {
    const a = await request(ctx.base, `/api/control/factor-lists/${id}/${step}`, { headers, body: "{}" });
    if (a.status !== 200) return `${step}: ${seen(a)} ${a.body.slice(0, 160)}`;
  }
  // The data plane loads it on the config notice (or its 5 s poll).
  for (let i = 0; i < 100; i++) {
    if ((await decide(ctx, ctx.apiKey, "SEND_EMAIL", "EU")).status === 200) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
  return "SEND_EMAIL never became routable";
}

let emailTeam: Promise<string | null> | null = null;
const emailTeamReady = (ctx: TProbeContext) => (emailTeam ??= setUpEmailTeam(ctx));

export const TENANCY_ATTACKS: readonly TAttack[] = [
  {
    item: "35.3",
    attack: "an LLM_CHAT key reports 250 local LLM_CHAT decisions selecting mail_x (SEND_EMAIL's provider) and one selecting no_such_provider",
    expected: "every item refused naming decisions.N.selected; logged 0",
    async run(ctx) {
      const setup = await emailTeamReady(ctx);
      if (setup) return { observed: `setup: ${setup}`, ok: false };
      const chat = await keyFor(ctx, "chat-local", ["decide"], ["LLM_CHAT"]);
      const item = (n: number, selected: string) => ({
        decisionId: uuidV7At(Date.now() - n),
        operation: "LLM_CHAT",
        region: "EU",
        requestId: `probe-local-${n}-${randomUUID()}`,
        selected,
        mode: "local",
      });
      const decisions = [...Array.from({ length: 250 }, (_, n) => item(n, "mail_x")), item(250, "no_such_provider")];
      const a = await request(ctx.base, "/api/v1/decisions/batch", { headers: bearer(chat.key), body: JSON.stringify({ decisions }) });
      const r = body(a) as { logged?: number; refused?: number; results?: { error?: { fields?: { path: string }[] } }[] } | null;
      const named = (r?.results ?? []).every((x, i) => x.error?.fields?.[0]?.path === `decisions.${i}.selected`);
      return {
        observed: `${seen(a)} logged ${r?.logged ?? "?"}, refused ${r?.refused ?? "?"}${named ? ", each naming its selected" : ""}`,
        ok: r?.logged === 0 && named,
      };
    },
  },
  {
    item: "35.4",
    attack: "one SEND_EMAIL decision, then 1,000 failure outcomes for it in one request: mail_x, mail_y and llm_openai, which it never offered",
    expected: "at most 3 per offered provider recorded, llm_openai refused (422), the next SEND_EMAIL decide still routes; the drilldown names the key",
    async run(ctx) {
      const setup = await emailTeamReady(ctx);
      if (setup) return { observed: `setup: ${setup}`, ok: false };
      const reporter = await keyFor(ctx, "poisoner", ["decide", "outcomes"], []);
      const d = body(await decide(ctx, reporter.key, "SEND_EMAIL", "EU"));
      if (!d?.decisionId) return { observed: "no decision", ok: false };
      // The compact answer's failover order: the providers the decision offered.
      const offered: string[] = (d.order as { provider: string }[]).map((c) => c.provider);
      const targets = [...offered, "llm_openai"];
      const outcomes = Array.from({ length: 1000 }, (_, i) => ({
        type: "provider_call",
        decisionId: d.decisionId,
        provider: targets[i % targets.length],
        status: "failure",
        errorClass: "http_5xx",
        latencyMs: 10,
        retryCount: 0,
      }));
      const a = await request(ctx.base, "/api/v1/outcomes", { headers: bearer(reporter.key), body: JSON.stringify({ outcomes }) });
      const r = body(a) as { recorded?: number; results?: { status: number }[] } | null;
      const foreign = (r?.results ?? []).filter((x, i) => targets[i % targets.length] === "llm_openai").every((x) => x.status === 422);
      const next = body(await decide(ctx, ctx.apiKey, "SEND_EMAIL", "EU"));
      const page = await request(ctx.base, `/decisions/${d.decisionId}`, { headers: { cookie: await ctx.cookieOf("on_call") } });
      const traced = page.body.includes(`sy_${reporter.prefix}`);
      const recorded = r?.recorded ?? -1;
      return {
        observed: `${seen(a)} recorded ${recorded} of 1000 (${offered.length} offered providers), foreign ${foreign ? "refused" : "ACCEPTED"}; next decide ${next?.reasonCode}; drilldown ${traced ? "names" : "does not name"} the key`,
        ok: recorded >= 0 && recorded <= 3 * offered.length && foreign && next?.selected != null && traced,
      };
    },
  },
  {
    item: "35.5",
    attack: "an outcomes key for LLM_CHAT reports on a SEND_EMAIL decision; a read key for LLM_CHAT fetches a SEND_EMAIL decision",
    expected: "404 and 404 (neither acts, neither reveals the decision exists)",
    async run(ctx) {
      const setup = await emailTeamReady(ctx);
      if (setup) return { observed: `setup: ${setup}`, ok: false };
      const chat = await keyFor(ctx, "chat-only", ["outcomes", "read"], ["LLM_CHAT"]);
      const d = body(await decide(ctx, ctx.apiKey, "SEND_EMAIL", "EU"));
      if (!d?.decisionId) return { observed: "no decision", ok: false };
      const outcome = { type: "business", decisionId: d.decisionId, completed: false, failureStage: "provider_call", withinSla: false };
      const o = await request(ctx.base, "/api/v1/outcomes", { headers: bearer(chat.key), body: JSON.stringify(outcome) });
      const g = await request(ctx.base, `/api/v1/decisions/${d.decisionId}`, { headers: bearer(chat.key) });
      return { observed: `outcome ${seen(o)}, GET ${seen(g)}`, ok: o.status === 404 && g.status === 404 };
    },
  },
  {
    item: "35.6",
    attack: "another key claims requestId order-… first (region NA), then the victim decides it (EU); then both send the same body",
    expected: "the victim gets a decision of its own each time (200, its own id, never replayed), no error naming NA",
    async run(ctx) {
      const setup = await emailTeamReady(ctx);
      if (setup) return { observed: `setup: ${setup}`, ok: false };
      const attacker = await keyFor(ctx, "claimer", ["decide"], []);
      const victim = await keyFor(ctx, "victim", ["decide"], []);
      const requestId = `order-${randomUUID().slice(0, 8)}`;
      const claimed = await decide(ctx, attacker.key, "SEND_EMAIL", "NA", requestId);
      const real = await decide(ctx, victim.key, "SEND_EMAIL", "EU", requestId);
      const copy = await decide(ctx, attacker.key, "SEND_EMAIL", "EU", `${requestId}-b`);
      const same = await decide(ctx, victim.key, "SEND_EMAIL", "EU", `${requestId}-b`);
      const own = (a: TAnswer, b: TAnswer) => a.status === 200 && body(a)?.decisionId !== body(b)?.decisionId && a.headers["idempotent-replayed"] === undefined;
      return {
        observed: `claim ${seen(claimed)}; victim ${seen(real)}${real.body.includes('"NA"') ? " naming NA" : ""}; same body ${seen(same)}${same.headers["idempotent-replayed"] ? " replayed" : ""}`,
        ok: own(real, claimed) && own(same, copy) && !real.body.includes('"NA"'),
      };
    },
  },
];
