import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A provider on 127.0.0.1 for tests and benchmarks: answers in the shape of OpenAI chat
 * completions, Anthropic messages, Gemini generateContent or a generic JSON API, after
 * `latencyMs`, with injectable faults. `faults` are consumed one per request in order (then the
 * provider is healthy again); `always` applies to every request while set.
 */
export type TMockKind = "openai" | "anthropic" | "gemini" | "http_json";

export type TMockFault =
  | { type: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  /** Accepts the request and never answers. */
  | { type: "timeout" }
  /** Waits before the status line (and, streaming, before the first chunk). */
  | { type: "slow_first_byte"; delayMs: number }
  /** Destroys the connection without an answer. */
  | { type: "reset" }
  /** 200 with a body that is not JSON. */
  | { type: "malformed_json" }
  /** 200 in the wrong protocol: a whole JSON answer to a stream request, an HTML page to a JSON one. */
  | { type: "wrong_content_type" }
  /** Streams `chunks` pieces of output, then destroys the connection. */
  | { type: "stream_dies_after"; chunks: number };

export type TMockRequest = { method: string; path: string; headers: http.IncomingHttpHeaders; body: unknown; at: number };

export type TMockProviderOptions = {
  kind: TMockKind;
  latencyMs?: number;
  faults?: TMockFault[];
  /** The answer text (chat kinds); default "Hello from <kind>". */
  reply?: string;
  /** Extra headers on every successful answer (e.g. x-ratelimit-remaining-requests). */
  headers?: Record<string, string>;
  /** Keep every request's body in `requests` (default true; benchmarks turn it off). */
  record?: boolean;
  port?: number;
};

export type TMockProvider = {
  url: string;
  requests: TMockRequest[];
  setFaults(faults: TMockFault[]): void;
  setAlways(fault: TMockFault | null): void;
  close(): Promise<void>;
};

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

export async function startMockProvider(opts: TMockProviderOptions): Promise<TMockProvider> {
  const queue: TMockFault[] = [...(opts.faults ?? [])];
  let always: TMockFault | null = null;
  const requests: TMockRequest[] = [];
  const reply = opts.reply ?? `Hello from ${opts.kind}`;
  const latency = opts.latencyMs ?? 0;
  const record = opts.record !== false;
  let served = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void handle(req, res, Buffer.concat(chunks));
    });
  });
  server.keepAliveTimeout = 65_000;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): Promise<void> {
    let body: unknown = null;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : null;
    } catch {
      body = raw.toString("utf8");
    }
    if (record) requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, at: Date.now() });
    const fault = always ?? queue.shift() ?? null;
    const n = ++served;
    const stream = isStream(opts.kind, req.url ?? "", body);
    if (fault?.type === "timeout") return;
    if (fault?.type === "reset") {
      req.socket.destroy();
      return;
    }
    await sleep(latency + (fault?.type === "slow_first_byte" ? fault.delayMs : 0));
    if (fault?.type === "status") {
      const payload = JSON.stringify(fault.body ?? { error: { message: `mock fault ${fault.status}`, type: "mock_error" } });
      res.writeHead(fault.status, { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...fault.headers });
      res.end(payload);
      return;
    }
    if (fault?.type === "wrong_content_type") {
      const payload = stream ? JSON.stringify(answer(opts.kind, reply, n, body)) : "<html><body>Sign in to continue</body></html>";
      res.writeHead(200, { "content-type": stream ? "application/json" : "text/html; charset=utf-8", "content-length": Buffer.byteLength(payload) });
      res.end(payload);
      return;
    }
    if (fault?.type === "malformed_json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"choices": [ {"message": ');
      return;
    }
    if (stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...opts.headers });
      const events = streamEvents(opts.kind, reply);
      const dieAfter = fault?.type === "stream_dies_after" ? fault.chunks : Infinity;
      let pieces = 0;
      for (const e of events) {
        if (e.piece) {
          if (pieces >= dieAfter) {
            res.socket?.destroy();
            return;
          }
          pieces++;
        }
        res.write(e.text);
        await sleep(1);
      }
      res.end();
      return;
    }
    const payload = JSON.stringify(answer(opts.kind, reply, n, body));
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...opts.headers });
    res.end(payload);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setFaults(faults) {
      queue.splice(0, queue.length, ...faults);
    },
    setAlways(fault) {
      always = fault;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function isStream(kind: TMockKind, path: string, body: unknown): boolean {
  if (kind === "gemini") return path.includes(":streamGenerateContent");
  return kind !== "http_json" && (body as { stream?: unknown } | null)?.stream === true;
}

function answer(kind: TMockKind, text: string, n: number, body: unknown): unknown {
  const model = (body as { model?: string } | null)?.model ?? "mock-model";
  switch (kind) {
    case "openai":
      return {
        id: `chatcmpl-${n}`,
        object: "chat.completion",
        model,
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      };
    case "anthropic":
      return {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        usage: { input_tokens: 12, output_tokens: 5 },
      };
    case "gemini":
      return {
        candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 },
        modelVersion: "mock-gemini",
      };
    case "http_json":
      return { id: `msg_${n}`, status: "accepted", received: body };
  }
}

function streamEvents(kind: TMockKind, text: string): Array<{ text: string; piece: boolean }> {
  const words = text.split(/(?<= )/);
  const data = (obj: unknown, event?: string) => ({ text: `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(obj)}\n\n`, piece: false });
  const piece = (e: { text: string }) => ({ ...e, piece: true });
  switch (kind) {
    case "openai":
      return [
        ...words.map((w) =>
          piece(data({ id: "c", object: "chat.completion.chunk", model: "mock-model", choices: [{ index: 0, delta: { content: w }, finish_reason: null }] })),
        ),
        data({ id: "c", object: "chat.completion.chunk", model: "mock-model", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
        data({ id: "c", object: "chat.completion.chunk", model: "mock-model", choices: [], usage: { prompt_tokens: 12, completion_tokens: words.length } }),
        { text: "data: [DONE]\n\n", piece: false },
      ];
    case "anthropic":
      return [
        data({ type: "message_start", message: { id: "m", model: "mock-claude", usage: { input_tokens: 12, output_tokens: 0 } } }, "message_start"),
        data({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
        ...words.map((w) => piece(data({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: w } }, "content_block_delta"))),
        data({ type: "content_block_stop", index: 0 }, "content_block_stop"),
        data({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: words.length } }, "message_delta"),
        data({ type: "message_stop" }, "message_stop"),
      ];
    case "gemini":
      return words.map((w, i) =>
        piece(
          data({
            candidates: [{ content: { role: "model", parts: [{ text: w }] }, ...(i === words.length - 1 ? { finishReason: "STOP" } : {}) }],
            ...(i === words.length - 1 ? { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: words.length } } : {}),
            modelVersion: "mock-gemini",
          }),
        ),
      );
    case "http_json":
      return [];
  }
}
