import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * One Node version story: package.json's engines, the README and .ci/run name the same minimum,
 * the running Node meets it, and every installed package accepts it, except the few that declare
 * a newer Node for code Switchyard does not run; those are named here and explained in the README.
 */
const ROOT = path.resolve(import.meta.dirname, "..");

/** Packages whose engines exclude Node 20, and why Node 20 still works: each must be explained in the README. */
const EXCEPTIONS: Record<string, string> = {
  // Its one Node 22 API (process.getBuiltinModule) is feature-detected; the tests drive it on Node 20.
  openai: "test-only client",
  // Loaded only by the Prisma CLI's `prisma dev`, which Switchyard never runs.
  "@prisma/streams-local": "prisma dev only",
  // Imports only assert and axe-core, which it injects into the page; the e2e runs it on Node 20.
  "@axe-core/playwright": "e2e-only accessibility check",
};

type TVersion = [number, number, number];

function parse(v: string): TVersion {
  const [a = "0", b = "0", c = "0"] = v.replace(/^v/, "").split(".");
  return [Number(a) || 0, Number(b) || 0, Number(c) || 0];
}

function cmp(a: TVersion, b: TVersion): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator of an npm engines range: *, X, X.Y, X.*, ^X.Y.Z, >=, >, <=, <, =. */
function meets(v: TVersion, comparator: string): boolean {
  const m = /^(\^|>=|<=|>|<|=)?\s*v?([\d.x*]*)$/.exec(comparator.trim());
  if (!m) throw new Error(`engines comparator not understood: ${comparator}`);
  const [, op = "", raw = ""] = m;
  const parts = raw.split(".").filter((p) => p !== "" && p !== "*" && p !== "x");
  if (parts.length === 0) return true;
  const base = parse(parts.join("."));
  if (op === "" || op === "=") return parts.every((p, i) => v[i] === Number(p));
  if (op === "^") return cmp(v, base) >= 0 && (base[0] > 0 ? v[0] === base[0] : v[1] === base[1]);
  const c = cmp(v, base);
  return op === ">=" ? c >= 0 : op === ">" ? c > 0 : op === "<=" ? c <= 0 : c < 0;
}

function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split("||").some((alt) =>
    alt
      .trim()
      .replace(/(>=|<=|>|<|=|\^)\s+/g, "$1")
      .split(/\s+/)
      .every((c) => meets(v, c)),
  );
}

function installedPackages(dir: string, out: Array<{ name: string; version: string; node: string }> = []) {
  for (const name of readdirSync(dir)) {
    if (name.startsWith(".")) continue;
    const p = path.join(dir, name);
    if (name.startsWith("@")) {
      installedPackages(p, out);
      continue;
    }
    const manifest = path.join(p, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string; engines?: { node?: unknown } };
    if (typeof pkg.engines?.node === "string") out.push({ name: pkg.name ?? name, version: pkg.version ?? "", node: pkg.engines.node });
    if (existsSync(path.join(p, "node_modules"))) installedPackages(path.join(p, "node_modules"), out);
  }
  return out;
}

const engines = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
/** The lowest version of each line the engines admit: "^20.19 || >=22.12" → 20.19.0, 22.12.0. */
const minimums = engines.split("||").map((alt) => parse(/[\d.]+/.exec(alt)![0]).join("."));

describe("Node version", () => {
  it("engines, the README and .ci/run name the same minimum, and this Node meets it", () => {
    expect(minimums[0]).toMatch(/^20\./);
    expect(satisfies(process.versions.node, engines)).toBe(true);
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    expect(readme).toContain(`Node ${minimums[0]!.replace(/\.0$/, "")}`);
    const ci = readFileSync(path.join(ROOT, ".ci/run"), "utf8");
    expect(ci).toContain(`"${engines}"`);
  });

  it("every installed package accepts the minimum, except the ones named and explained in the README", () => {
    const refuse = installedPackages(path.join(ROOT, "node_modules")).filter((p) => !minimums.every((m) => satisfies(m, p.node)));
    const names = [...new Set(refuse.map((p) => p.name))].sort();
    expect(names, refuse.map((p) => `${p.name}@${p.version}: ${p.node}`).join("\n")).toEqual(Object.keys(EXCEPTIONS).sort());
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    for (const name of names) expect(readme, name).toContain(`\`${name}\``);
  });

  it("reads engines ranges as npm does", () => {
    expect(satisfies("20.20.2", "^20.19 || ^22.12 || >=24.0")).toBe(true);
    expect(satisfies("20.12.0", "^20.19 || ^22.12 || >=24.0")).toBe(false);
    expect(satisfies("22.11.0", "^20.19 || >=22.12")).toBe(false);
    expect(satisfies("20.19.0", ">= 20.19.0")).toBe(true);
    expect(satisfies("20.19.0", "20 || >=22")).toBe(true);
    expect(satisfies("20.19.0", ">=22.0.0")).toBe(false);
    expect(satisfies("20.19.0", "10.* || >= 12.*")).toBe(true);
    expect(satisfies("20.19.0", "*")).toBe(true);
  });
});
