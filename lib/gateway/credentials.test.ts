import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { credentialHostProblem, resolveCredential } from "./credentials";
import { credentialRefProblem, secretNamespaceFromEnv } from "./secret-namespace";

const root = mkdtempSync(path.join(tmpdir(), "sy-secrets-"));
const dir = path.join(root, "secrets");
const outside = path.join(root, "outside");

afterAll(() => rmSync(root, { recursive: true, force: true }));

const SERVER_ENV = {
  DATABASE_URL: "postgresql://root:hunter2@db/switchyard",
  SWITCHYARD_AUDIT_KEY: "audit-key-SECRET",
  SWITCHYARD_ADMIN_PASSWORD: "admin-password-SECRET",
  SWITCHYARD_API_KEY: "bootstrap-SECRET",
  PGPASSWORD: "pg-SECRET",
  SWITCHYARD_SECRET_SMS: "sms-SECRET",
  OPENAI_API_KEY: "sk-openai",
  SMS_TOKEN: "legacy-name",
};

describe("the secrets namespace", () => {
  it("never resolves the server's own configuration, whatever the settings add", () => {
    const env = { ...SERVER_ENV, SWITCHYARD_SECRET_ENV_NAMES: "DATABASE_URL,SWITCHYARD_AUDIT_KEY,SWITCHYARD_ADMIN_PASSWORD,PGPASSWORD,SMS_TOKEN" };
    for (const name of ["DATABASE_URL", "SWITCHYARD_AUDIT_KEY", "SWITCHYARD_ADMIN_PASSWORD", "SWITCHYARD_API_KEY", "PGPASSWORD"]) {
      const r = resolveCredential(`env:${name}`, env);
      expect(r.ok, name).toBe(false);
      expect(JSON.stringify(r)).not.toContain("SECRET");
      expect(JSON.stringify(r)).toContain("server's own configuration");
    }
    expect(resolveCredential("env:SMS_TOKEN", env)).toEqual({ ok: true, value: "legacy-name" });
  });

  it("resolves the prefix and the listed names, and nothing else", () => {
    expect(resolveCredential("env:SWITCHYARD_SECRET_SMS", SERVER_ENV)).toEqual({ ok: true, value: "sms-SECRET" });
    expect(resolveCredential("env:OPENAI_API_KEY", SERVER_ENV)).toEqual({ ok: true, value: "sk-openai" });
    const legacy = resolveCredential("env:SMS_TOKEN", SERVER_ENV);
    expect(legacy).toMatchObject({ ok: false });
    expect(JSON.stringify(legacy)).toContain("outside the secrets namespace");
    const prefixed = { ...SERVER_ENV, SWITCHYARD_SECRET_ENV_PREFIX: "ACME_VAULT_", ACME_VAULT_MAIL: "mail" };
    expect(resolveCredential("env:ACME_VAULT_MAIL", prefixed)).toEqual({ ok: true, value: "mail" });
    expect(resolveCredential("env:SWITCHYARD_SECRET_SMS", prefixed).ok).toBe(false);
    // A prefix broad enough to reach the server's variables does not reach them.
    expect(resolveCredential("env:SWITCHYARD_AUDIT_KEY", { ...SERVER_ENV, SWITCHYARD_SECRET_ENV_PREFIX: "SWITCHYARD_" }).ok).toBe(false);
  });

  it("reads files only inside the secrets directory: no /proc, no .., no symlink out", () => {
    mkdirSync(dir);
    mkdirSync(outside);
    writeFileSync(path.join(dir, "sms"), "file-secret\n");
    writeFileSync(path.join(outside, "stolen"), "outside-SECRET");
    symlinkSync(path.join(outside, "stolen"), path.join(dir, "link"));
    symlinkSync("/proc/self/environ", path.join(dir, "environ"));
    const env = { SWITCHYARD_SECRETS_DIR: dir };
    expect(resolveCredential(`file:${dir}/sms`, env)).toEqual({ ok: true, value: "file-secret" });
    for (const ref of [
      "file:/proc/self/environ",
      `file:${dir}/../outside/stolen`,
      `file:${dir}/./sms`,
      `file:${dir}//sms`,
      `file:${outside}/stolen`,
      `file:${dir}`,
    ]) {
      expect(resolveCredential(ref, env).ok, ref).toBe(false);
      expect(credentialRefProblem(ref, secretNamespaceFromEnv(env)), ref).not.toBeNull();
    }
    // Inside by its text, outside by its real path: refused when read.
    expect(credentialRefProblem(`file:${dir}/link`, secretNamespaceFromEnv(env))).toBeNull();
    expect(resolveCredential(`file:${dir}/link`, env, 1)).toMatchObject({ ok: false });
    expect(resolveCredential(`file:${dir}/environ`, env, 1)).toMatchObject({ ok: false });
    // The server's own key files are never credentials, even inside the directory or behind a link.
    writeFileSync(path.join(dir, "audit-key"), "audit-SECRET");
    symlinkSync(path.join(dir, "audit-key"), path.join(dir, "innocent"));
    const withKeyFile = { ...env, SWITCHYARD_AUDIT_KEY_FILE: path.join(dir, "audit-key") };
    expect(resolveCredential(`file:${dir}/audit-key`, withKeyFile).ok).toBe(false);
    expect(resolveCredential(`file:${dir}/innocent`, withKeyFile, 2).ok).toBe(false);
    // The default directory is /run/secrets; /proc cannot be made the directory.
    expect(credentialRefProblem("file:/run/secrets/sms", secretNamespaceFromEnv({}))).toBeNull();
    expect(resolveCredential("file:/proc/self/environ", { SWITCHYARD_SECRETS_DIR: "/proc/self" }).ok).toBe(false);
  });
});

describe("a credential's hosts", () => {
  it("goes only where it is declared, else where SWITCHYARD_PROVIDER_HOSTS allows", () => {
    const env = { SWITCHYARD_CREDENTIAL_HOSTS: "env:SWITCHYARD_SECRET_SMS=api.sms.test|*.sms-eu.test", SWITCHYARD_PROVIDER_HOSTS: "mail.test" };
    expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "https://api.sms.test/v1/send", env)).toBeNull();
    expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "https://fra.sms-eu.test/send", env)).toBeNull();
    expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "https://mail.test/send", env)).toContain("bound to api.sms.test, *.sms-eu.test, not mail.test");
    expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "https://127.0.0.2:3705/", env)).toContain("not 127.0.0.2");
    expect(credentialHostProblem("env:SWITCHYARD_SECRET_MAIL", "https://mail.test/send", env)).toBeNull();
    expect(credentialHostProblem("env:SWITCHYARD_SECRET_MAIL", "https://evil.test/send", env)).toContain("not evil.test");
    expect(credentialHostProblem(null, "https://evil.test/", env)).toBeNull();
  });

  it("with nothing declared, goes only to a loopback mock where those are allowed (tests here)", () => {
    expect(process.env.NODE_ENV).toBe("test");
    expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "http://127.0.0.1:4000/send", {})).toBeNull();
    expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "https://attacker.test/", {})).toContain("bound to no host");
  });

  it("from process.env, follows a changed binding within a second; an env of its own at once", () => {
    const saved = process.env.SWITCHYARD_CREDENTIAL_HOSTS;
    const t = 5_000_000;
    try {
      process.env.SWITCHYARD_CREDENTIAL_HOSTS = "env:SWITCHYARD_SECRET_SMS=api.sms.test";
      expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "https://api.sms.test/send", process.env, t)).toBeNull();
      process.env.SWITCHYARD_CREDENTIAL_HOSTS = "env:SWITCHYARD_SECRET_SMS=other.sms.test";
      // The server's settings do not change while it runs: the namespace is read at most once a second.
      expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "https://api.sms.test/send", process.env, t + 999)).toBeNull();
      expect(credentialHostProblem("env:SWITCHYARD_SECRET_SMS", "https://api.sms.test/send", process.env, t + 1_000)).toContain("bound to other.sms.test");
      expect(resolveCredential("env:SWITCHYARD_SECRET_SMS", { SWITCHYARD_SECRET_ENV_NAMES: "", SWITCHYARD_SECRET_SMS: "v" }, t + 1_001)).toEqual({
        ok: true,
        value: "v",
      });
      expect(resolveCredential("env:SMS_TOKEN", { SMS_TOKEN: "v" }, t + 1_001).ok).toBe(false);
      expect(resolveCredential("env:SMS_TOKEN", { SMS_TOKEN: "v", SWITCHYARD_SECRET_ENV_NAMES: "SMS_TOKEN" }, t + 1_001)).toEqual({ ok: true, value: "v" });
    } finally {
      if (saved === undefined) delete process.env.SWITCHYARD_CREDENTIAL_HOSTS;
      else process.env.SWITCHYARD_CREDENTIAL_HOSTS = saved;
    }
  });
});
