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
  const base = (values.url ?? process.env.SWITCHYARD_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const key = process.env.SWITCHYARD_CONTROL_KEY;
  if (!key) fail("set SWITCHYARD_CONTROL_KEY to an API key with the control scope");
  const auth = { authorization: `Bearer ${key}` };

  if (command === "export") {
    const res = await fetch(`${base}/api/control/export`, { headers: auth });
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
    const res = await fetch(`${base}/api/control/apply${dryRun ? "?dryRun=1" : ""}`, {
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
    return;
  }
  fail(`unknown command ${command}\n${USAGE}`);
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
