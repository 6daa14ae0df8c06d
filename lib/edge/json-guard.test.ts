import { describe, expect, it } from "vitest";
import { countKeys, findDuplicateKey, JsonScan, MAX_JSON_MEMBERS } from "./json-guard";

/** The scan's verdict on `text` fed in the given pieces. */
function scan(pieces: string[], maxDepth = 64): { tooDeep: boolean; keys: number } {
  const s = new JsonScan(maxDepth);
  for (const p of pieces) s.feed(Buffer.from(p));
  return { tooDeep: s.tooDeep, keys: s.keys };
}

/** The same verdict for every split of the body's bytes into two chunks (escapes and quotes cut anywhere). */
function everySplit(text: string, maxDepth = 64): { tooDeep: boolean; keys: number } {
  const whole = scan([text], maxDepth);
  const bytes = Buffer.from(text);
  for (let at = 1; at < bytes.length; at++) {
    const s = new JsonScan(maxDepth);
    s.feed(bytes.subarray(0, at));
    s.feed(bytes.subarray(at));
    expect({ tooDeep: s.tooDeep, keys: s.keys }, `split at ${at}`).toEqual(whole);
  }
  return whole;
}

/** What readJsonBody concludes: the path of a repeated key, or null. */
function duplicate(text: string): string | null {
  const { keys } = everySplit(text);
  return countKeys(JSON.parse(text)) < keys ? findDuplicateKey(text) : null;
}

describe("JsonScan + countKeys + findDuplicateKey", () => {
  it("finds a repeated key and names its path", () => {
    expect(duplicate('{"operation":"SEND_SMS","region":"EU","requestId":"dup-1","region":"NA"}')).toBe("region");
    expect(duplicate('{"outcomes":[{"a":1},{"b":{"c":1,"d":[1,{"e":1,"e":2}]}}]}')).toBe("outcomes.1.b.d.1.e");
    // The first value's keys are dropped with it, and integer-like keys come first in the parsed object.
    expect(duplicate('{"a":{"x":1,"y":2},"2":{"k":1},"b":2,"a":3}')).toBe("a");
  });

  it("compares keys by their value, not their spelling", () => {
    expect(duplicate('{"a":1,"\\u0061":2}')).toBe("a");
    expect(duplicate('{"é":1,"\\u00e9":2}')).toBe("é");
    expect(duplicate('{"a\\"b":1,"a\\u0022b":2}')).toBe('a"b');
    expect(duplicate('{"__proto__":1,"__proto__":2}')).toBe("__proto__");
  });

  it("accepts the same key in different objects, colons in strings, and keys that only look alike", () => {
    expect(duplicate('{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"\\"a\\":1,\\"a\\":"}')).toBeNull();
    expect(duplicate('{"a":1,"A":2,"a ":3,"\\\\":4,"\\\\\\\\":5,"__proto__":{"a":1}}')).toBeNull();
    expect(duplicate('["a","a",{"k":"a:"},{"k":"b"}]')).toBeNull();
    expect(everySplit('{"s":"::[[[{{{\\\\","t":"\\":}]"}').keys).toBe(2);
  });

  it("refuses nesting past the limit, not counting brackets in strings, and stops scanning there", () => {
    expect(everySplit("[[[1]]]", 3).tooDeep).toBe(false);
    expect(everySplit('[["[[[[\\"[["]]', 3).tooDeep).toBe(false);
    expect(everySplit("[[[[1]]]]", 3).tooDeep).toBe(true);
    expect(everySplit('{"a":{"b":{"c":{}}}}', 3).tooDeep).toBe(true);
    // Depth counts open containers, not how many were opened: siblings do not add up.
    expect(scan(["[", "[1],".repeat(10_000), "[2]]"], 2).tooDeep).toBe(false);
    expect(scan(["[".repeat(4_000_000)]).tooDeep).toBe(true);
  });

  it("refuses more keys and elements than the limit, but not the largest valid outcomes batch or a long string", () => {
    const many = (n: number) => {
      const s = new JsonScan();
      s.feed(Buffer.from(`[${"0,".repeat(n - 1)}0]`));
      return s.tooMany;
    };
    expect(many(MAX_JSON_MEMBERS + 1)).toBe(false);
    expect(many(MAX_JSON_MEMBERS + 2)).toBe(true);
    const call = {
      type: "provider_call",
      decisionId: "d",
      provider: "p",
      status: "failure",
      errorClass: "timeout",
      httpStatus: 504,
      latencyMs: 1,
      retryCount: 0,
      ttfbMs: 1,
    };
    const batch = new JsonScan();
    batch.feed(Buffer.from(JSON.stringify({ outcomes: Array.from({ length: 1_000 }, () => call) })));
    expect(batch.tooMany).toBe(false);
    const prompt = new JsonScan();
    prompt.feed(Buffer.from(JSON.stringify({ input: { messages: [{ role: "user", content: "a, b: c, ".repeat(500_000) }] } })));
    expect(prompt.tooMany).toBe(false);
  });
});
