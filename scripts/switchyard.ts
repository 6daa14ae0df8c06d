import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";

// `npm run switchyard -- export [-o FILE]` and `npm run switchyard -- apply -f FILE [--dry-run]`:
// configuration as code against a running instance, authenticated with an API key that has the
// control scope (created by an admin on /governance/access).

const USAGE = `usage:
  npm run switchyard -- export [-o FILE] [--url URL]
  npm run switchyard -- apply -f FILE [--dry-run] [--url URL]
environment: SWITCHYARD_URL (default http://127.0.0.1:3000), SWITCHYARD_CONTROL_KEY (an API key with the control scope)`;

type TChange = { target: string; action: string; effect: string; detail: string; warnings?: string[] };
type TError = { error?: { code: string; message: string; fields?: { path: string; message: string }[] } };

const COMMANDS = ["export", "apply"];

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** fetch, but a network failure names the URL and its cause (not just "fetch failed"). */
async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : null;
    const code = cause && "code" in cause ? `${String(cause.code)}: ` : "";
    fail(`cannot reach ${url}: ${cause ? `${code}${cause.message}` : err instanceof Error ? err.message : String(err)}`);
  }
}

function fail(message: string): never {
  process.stderr.write(`switchyard: ${message}\n`);
  process.exit(1);
}

async function refusal(res: Response): Promise<never> {
  const text = await res.text();
  let body: TError = {};
  try {
    body = JSON.parse(text) as TError;
  } catch {
    fail(`${res.status}: ${text.slice(0, 500)}`);
  }
  const lines = [
    `${res.status} ${body.error?.code ?? ""}: ${body.error?.message ?? text.slice(0, 500)}`,
    ...(body.error?.fields ?? []).map((f) => `  ${f.path || "(bundle)"}: ${f.message}`),
  ];
  fail(lines.join("\n"));
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      file: { type: "string", short: "f" },
      out: { type: "string", short: "o" },
      "dry-run": { type: "boolean" },
      url: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0];
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(command || values.help ? 0 : 1);
  }
  // A mistyped command is answered before anything else (not with "set SWITCHYARD_CONTROL_KEY").
  if (!COMMANDS.includes(command)) {
    const near = COMMANDS.find((c) => editDistance(c, command) <= 2);
    fail(`unknown command ${command}${near ? `; did you mean ${near}?` : ""}\n${USAGE}`);
  }
  const base = (values.url ?? process.env.SWITCHYARD_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const key = process.env.SWITCHYARD_CONTROL_KEY;
  if (!key) fail("set SWITCHYARD_CONTROL_KEY to an API key with the control scope");
  const auth = { authorization: `Bearer ${key}` };

  if (command === "export") {
    const res = await request(`${base}/api/control/export`, { headers: auth });
    if (!res.ok) await refusal(res);
    const yaml = await res.text();
    if (values.out) {
      await writeFile(values.out, yaml);
      process.stderr.write(`switchyard: wrote ${values.out}\n`);
    } else process.stdout.write(yaml);
    return;
  }
  if (command === "apply") {
    if (!values.file) fail(`apply needs -f FILE\n${USAGE}`);
    const text = await readFile(values.file, "utf8");
    const dryRun = values["dry-run"] === true;
    const res = await request(`${base}/api/control/apply${dryRun ? "?dryRun=1" : ""}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/yaml" },
      body: text,
    });
    if (!res.ok) await refusal(res);
    const result = (await res.json()) as { dryRun: boolean; changes: TChange[]; summary: string };
    const effect = (
      dryRun
        ? { applied: "would apply", pending: "would wait for compliance", in_review: "would be in review", refused: "refused" }
        : { applied: "applied", pending: "waits for compliance", in_review: "in review" }
    ) as Record<string, string>;
    for (const c of result.changes) {
      process.stdout.write(`${c.action.padEnd(7)} ${c.target.padEnd(36)} ${(effect[c.effect] ?? c.effect).padEnd(22)} ${c.detail}\n`);
      for (const w of c.warnings ?? []) process.stdout.write(`        warning: ${c.target} ${w}\n`);
    }
    process.stdout.write(`${dryRun ? "dry run: " : ""}${result.summary}\n`);
    if (result.changes.some((c) => c.effect === "refused")) fail("apply would be refused as a whole: fix the refused changes above");
    return;
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
