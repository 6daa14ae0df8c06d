import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createSecretScanner, formatFindings, secretsFromEnv } from "./secret-scan";

const HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";
const KEY = "sy_ab12cd34_Q2hhbmdlTWVQbGVhc2VJdElzQVNlY3JldEtleQ";

describe("secret scanner", () => {
  it("finds a secret as is, JSON-escaped and percent-encoded, and masks it in the report", () => {
    const s = createSecretScanner([
      { label: "password hash", value: HASH },
      { label: "api key", value: KEY },
      { label: "quoted", value: 'pa"ss\\word-123' },
    ]);
    s.scan("response A", JSON.stringify({ user: { passwordHash: HASH } }));
    s.scan("response B", `GET /x?key=${encodeURIComponent(KEY)}`);
    s.scan("response C", JSON.stringify({ note: 'pa"ss\\word-123' }));
    s.scan("clean", JSON.stringify({ prefix: "ab12cd34", id: "0190-aaaa" }));
    expect(s.findings().map((f) => [f.label, f.source])).toEqual([
      ["password hash", "response A"],
      ["api key", "response B"],
      ["quoted", "response C"],
    ]);
    const report = formatFindings(s.findings());
    expect(report).not.toContain(HASH);
    expect(report).not.toContain(KEY);
    expect(report).toContain("[SECRET]");
  });

  it("finds a secret split across any two chunks of a stream, once", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), fc.nat(), (pre, post, cutSeed) => {
        const text = `${pre}${KEY}${post}`;
        const cut = cutSeed % (text.length + 1);
        const s = createSecretScanner([{ label: "api key", value: KEY }]);
        s.feed("server stdout", text.slice(0, cut));
        s.feed("server stdout", text.slice(cut));
        const hits = s.findings().filter((f) => f.offset === pre.length);
        expect(hits).toHaveLength(1);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it("keeps streams apart: the tail of one source never completes a match in another", () => {
    const s = createSecretScanner([{ label: "api key", value: KEY }]);
    s.feed("stdout", KEY.slice(0, 20));
    s.feed("stderr", KEY.slice(20));
    expect(s.findings()).toEqual([]);
  });

  it("reports nothing for clean text and skips secrets too short to match safely", () => {
    const s = createSecretScanner([
      { label: "short", value: "abc" },
      { label: "api key", value: KEY },
    ]);
    s.feed("log", "decision 0190f0aa committed in 2 ms\n".repeat(100));
    expect(s.findings()).toEqual([]);
    expect(s.skipped()).toEqual(["short"]);
    expect(s.stats().scannedChars).toBeGreaterThan(1000);
  });

  it("takes credential values from the environment, including passwords inside URLs", () => {
    const secrets = secretsFromEnv({
      SWITCHYARD_API_KEY: "bootstrap-key-123456",
      OPENAI_API_KEY: "sk-test-abcdefgh",
      PROVIDER_TWILIO_AUTH_TOKEN: "tw-token-99999999",
      DATABASE_URL: "postgres://app:s3cr%40t-pass@db:5432/sy",
      PORT: "3000",
      NODE_ENV: "production",
      KEYBOARD: "us",
    });
    expect(secrets.map((s) => s.value).sort()).toEqual(["bootstrap-key-123456", "s3cr@t-pass", "sk-test-abcdefgh", "tw-token-99999999"]);
  });
});
