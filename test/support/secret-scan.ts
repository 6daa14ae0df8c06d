/** A value that must never leave the server: what it is, and the value itself. */
export type TSecret = { label: string; value: string };

export type TSecretFinding = { label: string; source: string; offset: number; excerpt: string };

/**
 * Shorter values would match by accident (a 4-character password inside a UUID); every real
 * secret here (256-bit tokens, argon2 hashes, provider keys) is far longer.
 */
export const MIN_SECRET_LENGTH = 8;

/** Env names that hold credentials by convention. */
const CREDENTIAL_NAME = /(^|_)(KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIALS?|AUTH)($|_)/i;

/**
 * Credential values from an environment (provider keys, SWITCHYARD_API_KEY, the first admin's
 * password); connection strings count when they carry a password.
 */
export function secretsFromEnv(env: Readonly<Record<string, string | undefined>>): TSecret[] {
  const out: TSecret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (CREDENTIAL_NAME.test(name)) out.push({ label: `env ${name}`, value });
    else if (/_URL$/.test(name)) {
      try {
        const password = decodeURIComponent(new URL(value).password);
        if (password) out.push({ label: `password in env ${name}`, value: password });
      } catch {
        // not a URL
      }
    }
  }
  return out;
}

/**
 * The forms a secret takes in text we scan: as is, JSON-escaped (inside a logged or returned
 * JSON string) and percent-encoded (in a URL or form body).
 */
function encodings(value: string): string[] {
  return [...new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)])];
}

function excerptAround(text: string, offset: number, length: number): string {
  // The secret itself is masked: the report must not become the leak.
  const before = text.slice(Math.max(0, offset - 40), offset);
  const after = text.slice(offset + length, offset + length + 40);
  return `${before}[SECRET]${after}`.replace(/\s+/g, " ");
}

/**
 * Finds known secrets in streams of text (response bodies, log lines). Each source is a
 * stream: chunks are scanned with the tail of the previous one, so a secret split across two
 * writes is still found. Secrets shorter than MIN_SECRET_LENGTH are reported as skipped.
 */
export function createSecretScanner(secrets: readonly TSecret[]) {
  const needles: { label: string; text: string }[] = [];
  const skipped: string[] = [];
  for (const s of secrets) {
    if (s.value.length < MIN_SECRET_LENGTH) {
      skipped.push(s.label);
      continue;
    }
    for (const text of encodings(s.value)) needles.push({ label: s.label, text });
  }
  const longest = needles.reduce((m, n) => Math.max(m, n.text.length), 0);
  const tails = new Map<string, { tail: string; consumed: number }>();
  const findings: TSecretFinding[] = [];
  const seen = new Set<string>();
  let scannedChars = 0;

  function search(text: string, source: string, base: number, minEnd: number): void {
    for (const n of needles) {
      let from = 0;
      for (;;) {
        const at = text.indexOf(n.text, from);
        if (at < 0) break;
        from = at + 1;
        // A match wholly inside the carried-over tail was reported with the previous chunk.
        if (at + n.text.length <= minEnd) continue;
        const key = `${source}\u0000${base + at}\u0000${n.label}`;
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push({ label: n.label, source, offset: base + at, excerpt: excerptAround(text, at, n.text.length) });
      }
    }
  }

  return {
    /** Scans the next chunk of the stream named `source`. */
    feed(source: string, chunk: string): void {
      scannedChars += chunk.length;
      if (needles.length === 0) return;
      const prev = tails.get(source) ?? { tail: "", consumed: 0 };
      const text = prev.tail + chunk;
      const base = prev.consumed - prev.tail.length;
      search(text, source, base, prev.tail.length);
      const keep = Math.min(text.length, longest - 1);
      tails.set(source, { tail: text.slice(text.length - keep), consumed: prev.consumed + chunk.length });
    },
    /** Scans one complete text (a response body). */
    scan(source: string, text: string): void {
      scannedChars += text.length;
      search(text, source, 0, 0);
    },
    findings: (): readonly TSecretFinding[] => findings,
    skipped: (): readonly string[] => skipped,
    stats: () => ({ secrets: secrets.length - skipped.length, sources: tails.size, scannedChars, findings: findings.length }),
  };
}

export type SecretScanner = ReturnType<typeof createSecretScanner>;

/** One line per finding, for a script's failure output; the secret itself stays masked. */
export function formatFindings(findings: readonly TSecretFinding[]): string {
  return findings.map((f) => `  ${f.label} in ${f.source} at ${f.offset}: …${f.excerpt}…`).join("\n");
}
