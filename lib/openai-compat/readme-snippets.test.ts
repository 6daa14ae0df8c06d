import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createAuthenticator, setAuthenticator } from "../edge/authenticate";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";

/**
 * The root README's Anthropic and Responses snippets ("Use it from your service"), run as
 * written against the gateway test server; and a check that the README still shows exactly the
 * code run here (its import lines and the switchyardUrl line aside).
 */
let env: TGatewayEnv;
let switchyardUrl: string;
let printed: string[];
const API_KEY = "sy-readme-key";

beforeAll(async () => {
  env = await createGatewayEnv({ apiKey: API_KEY });
  setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: false }));
  switchyardUrl = env.server.url;
  vi.stubEnv("SWITCHYARD_API_KEY", API_KEY);
}, 60_000);
afterAll(async () => {
  vi.unstubAllEnvs();
  await env?.close();
});
afterEach(() => vi.restoreAllMocks());

function capture(): void {
  printed = [];
  vi.spyOn(console, "log").mockImplementation(
    (...args: unknown[]) => void printed.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ")),
  );
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => printed.push(String(chunk)) > 0);
}

describe("README snippets", () => {
  it("Anthropic Messages", async () => {
    capture();
    // --- README: Anthropic ---
    const claude = new Anthropic({ baseURL: `${switchyardUrl}/api/v1/anthropic`, apiKey: process.env.SWITCHYARD_API_KEY });
    const messages = [{ role: "user" as const, content: "Hello" }];
    const msg = await claude.messages.create({ model: "LLM_CHAT@EU", max_tokens: 256, system: "Be brief.", messages });
    console.log(msg.content[0]?.type === "text" ? msg.content[0].text : "", msg.usage.output_tokens);
    const stream = claude.messages.stream({ model: "LLM_CHAT@EU", max_tokens: 256, messages });
    stream.on("text", (text) => process.stdout.write(text));
    console.log((await stream.finalMessage()).stop_reason);
    // --- end ---
    expect(printed).toEqual(["Hello from openai 5", "Hello ", "from ", "openai", "end_turn"]);
  });

  it("OpenAI Responses", async () => {
    capture();
    // --- README: Responses ---
    const ai = new OpenAI({ baseURL: `${switchyardUrl}/api/v1/openai`, apiKey: process.env.SWITCHYARD_API_KEY });
    const r = await ai.responses.create({ model: "LLM_CHAT@EU", instructions: "Be brief.", input: "Hello" });
    console.log(r.output_text, r.usage?.output_tokens);
    for await (const ev of await ai.responses.create({ model: "LLM_CHAT@EU", input: "Hello", stream: true }))
      if (ev.type === "response.output_text.delta") process.stdout.write(ev.delta);
    // --- end ---
    expect(printed).toEqual(["Hello from openai 5", "Hello ", "from ", "openai"]);
  });

  it("the README shows the code these tests run", () => {
    const readme = readFileSync("README.md", "utf8");
    const self = readFileSync(new URL(import.meta.url), "utf8");
    for (const name of ["Anthropic", "Responses"]) {
      const ran = self.split(`// --- README: ${name} ---\n`)[1]!.split("// --- end ---")[0]!;
      const lines = ran
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "");
      const block = readme.split("```ts\n").find((b) => b.includes(lines[0]!));
      expect(block, `README block for ${name}`).toBeDefined();
      const shown = block!
        .split("```")[0]!
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "" && !l.startsWith("import ") && !l.startsWith("const switchyardUrl"));
      expect(shown, name).toEqual(lines);
    }
  });
});
