import http from "node:http";
import type { AddressInfo } from "node:net";
import { effectOf, type TFault } from "./fault-model";
import { simulateCall } from "./provider-model";
import { DEMO_LLM_PROVIDERS, type TDemoLlmProvider } from "./llm-provider-keys";
import { demoStreamEvents } from "./llm-stream-events";

/**
 * The demo's LLM providers: one HTTP server on 127.0.0.1 speaking the three wire formats execute
 * mode's adapters use, one path prefix per provider (`/llm_openai/v1/chat/completions`,
 * `/llm_anthropic/v1/messages`, `/llm_gemini/v1beta/models/<model>:generateContent`), whole
 * answers and streamed ones (`stream: true`; Gemini's `:streamGenerateContent?alt=sse`) alike,
 * each in the provider's own event format (llm-stream-events.ts). Each call
 * plays the provider model with the chaos panel's faults, so an injected outage on llm_openai
 * in EU makes real calls fail and execute mode fail over, exactly as with a real provider.
 *
 * A provider API does not see the caller's region, but a demo fault is per provider and region:
 * the demo services open each prompt with the region in brackets (`[EU] …`), and the mock
 * reads it from there. Requests without a tag are played as the provider's first region.
 */

/** The base URL each adapter kind appends its own path to. */
export const DEMO_LLM_BASE_PATHS: Record<TDemoLlmProvider, string> = {
  llm_openai: "/llm_openai/v1",
  llm_anthropic: "/llm_anthropic/v1",
  llm_gemini: "/llm_gemini/v1beta",
};

/** A call that "times out" hangs this long; the demo adapters give up well before. */
const HANG_MS = 5_000;
const REGION_TAG = /^\s*\[([A-Za-z0-9_-]{1,64})\]/;

type TChat = { region: string; promptChars: number };

function readChat(provider: TDemoLlmProvider, body: unknown): TChat {
  const b = (body ?? {}) as Record<string, unknown>;
  let first = "";
  let chars = 0;
  if (provider === "llm_gemini") {
    const contents = Array.isArray(b.contents) ? (b.contents as Array<{ parts?: Array<{ text?: unknown }> }>) : [];
    for (const c of contents) {
      for (const p of c.parts ?? []) {
        if (typeof p.text !== "string") continue;
        first ||= p.text;
        chars += p.text.length;
      }
    }
  } else {
    const messages = Array.isArray(b.messages) ? (b.messages as Array<{ role?: unknown; content?: unknown }>) : [];
    for (const m of messages) {
      if (typeof m.content !== "string") continue;
      chars += m.content.length;
      if (!first && m.role === "user") first = m.content;
    }
  }
  return { region: REGION_TAG.exec(first)?.[1] ?? "EU", promptChars: chars };
}

function answerBody(provider: TDemoLlmProvider, model: string, text: string, inputTokens: number, outputTokens: number): unknown {
  switch (provider) {
    case "llm_openai":
      return {
        id: `chatcmpl-demo-${Date.now().toString(36)}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      };
    case "llm_anthropic":
      return {
        id: `msg_demo_${Date.now().toString(36)}`,
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        usage: { input_tokens: inputTokens, output_tokens: outputTokens },
      };
    case "llm_gemini":
      return {
        candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: inputTokens, candidatesTokenCount: outputTokens, totalTokenCount: inputTokens + outputTokens },
        modelVersion: model,
      };
  }
}

function errorBody(provider: TDemoLlmProvider, status: number, message: string): unknown {
  if (provider === "llm_anthropic") return { type: "error", error: { type: status === 429 ? "rate_limit_error" : "overloaded_error", message } };
  if (provider === "llm_gemini") return { error: { code: status, message, status: status === 429 ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE" } };
  return { error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: null } };
}

/** The provider a path addresses; `geminiStream` when it is Gemini's streaming method (the others say `stream` in the body). */
function providerOf(url: URL): { provider: TDemoLlmProvider; model: string; geminiStream: boolean } | null {
  for (const provider of DEMO_LLM_PROVIDERS) {
    const base = DEMO_LLM_BASE_PATHS[provider];
    if (!url.pathname.startsWith(`${base}/`)) continue;
    const rest = url.pathname.slice(base.length);
    if (provider === "llm_openai" && rest === "/chat/completions") return { provider, model: "demo-openai", geminiStream: false };
    if (provider === "llm_anthropic" && rest === "/messages") return { provider, model: "demo-anthropic", geminiStream: false };
    const gemini = /^\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(rest);
    // Gemini streams Server-Sent Events only with alt=sse; without it, a JSON array (not spoken here).
    if (provider === "llm_gemini" && gemini && (gemini[2] === "generateContent" || url.searchParams.get("alt") === "sse")) {
      return { provider, model: decodeURIComponent(gemini[1]!), geminiStream: gemini[2] === "streamGenerateContent" };
    }
  }
  return null;
}

/**
 * Sends a streamed answer: the head and first event after half the call's simulated latency (its
 * time to first byte), the rest spread over the other half, as a model emits tokens.
 */
function streamEvents(res: http.ServerResponse, events: readonly string[], latencyMs: number, later: (ms: number, fn: () => void) => void): void {
  const gap = Math.max(1, Math.round(latencyMs / 2 / Math.max(1, events.length)));
  const send = (i: number) => {
    if (res.destroyed) return;
    if (i === 0) res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    if (i === events.length) {
      res.end();
      return;
    }
    res.write(events[i]);
    later(gap, () => send(i + 1));
  };
  later(Math.round(latencyMs / 2), () => send(0));
}

export type TDemoLlmServer = { url: string; calls: () => number; close(): Promise<void> };

export async function startDemoLlmProviders(opts: { faults: () => readonly TFault[]; random?: () => number; now?: () => number }): Promise<TDemoLlmServer> {
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;
  const timers = new Set<NodeJS.Timeout>();
  let calls = 0;
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const server = http.createServer((req, res) => {
    const route = req.method === "POST" ? providerOf(new URL(req.url ?? "/", "http://localhost")) : null;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (!route) return json(res, 404, { error: { message: `no demo LLM endpoint at ${req.method} ${req.url}` } });
      if (!req.headers.authorization && !req.headers["x-api-key"] && !req.headers["x-goog-api-key"]) {
        return json(res, 401, errorBody(route.provider, 401, "missing API key"));
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return json(res, 400, errorBody(route.provider, 400, "request body is not JSON"));
      }
      calls++;
      const chat = readChat(route.provider, body);
      const call = simulateCall(route.provider, effectOf(opts.faults(), route.provider, chat.region, now()), random);
      if (call.errorClass === "timeout") return later(HANG_MS, () => res.destroy());
      if (call.status === "failure") {
        const status = call.httpStatus ?? 503;
        return later(call.latencyMs, () =>
          json(res, status, errorBody(route.provider, status, `demo ${route.provider} failed in ${chat.region}`), status === 429 ? { "retry-after": "1" } : {}),
        );
      }
      const inputTokens = Math.max(1, Math.ceil(chat.promptChars / 4));
      const text = `Demo answer from ${route.provider} (${chat.region}).`;
      if (route.geminiStream || (body as { stream?: unknown } | null)?.stream === true) {
        const events = demoStreamEvents(route.provider, { model: route.model, text, inputTokens, outputTokens: 9 }, Date.now().toString(36));
        return streamEvents(res, events, call.latencyMs, later);
      }
      later(call.latencyMs, () => json(res, 200, answerBody(route.provider, route.model, text, inputTokens, 9)));
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
