import http from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { decide } from "../../router-core/index";
import { LocalRouter, SwitchyardClient, type TDecision } from "../../client/src/index";

/**
 * An example service that adopts Switchyard both ways:
 * - POST /sms {to, text}: asks Switchyard which SMS provider to use (@switchyard/client), calls
 *   it, fails over along the decision's order, and reports each call's outcome. Keeps sending
 *   while Switchyard is down (fail-static).
 *   With `local: true` it decides in process (LocalRouter on Switchyard's routing snapshot), and
 *   asks Switchyard (or fails static) only while no snapshot has arrived yet.
 * - POST /chat {prompt}: the official openai client pointed at Switchyard's OpenAI-compatible
 *   base URL; Switchyard picks the LLM provider and fails over.
 * - GET /stats: the client's counters.
 */
export type TServiceOptions = {
  switchyardUrl: string;
  apiKey: string;
  /** Where each SMS provider takes `POST /sms/:to` (a stand-in for the providers' own APIs). */
  providerUrls: Record<string, string>;
  port?: number;
  /** Fail-static order before any decision was seen. */
  staticOrder?: Record<string, string[]>;
};

export type TService = { url: string; switchyard: SwitchyardClient; close(): Promise<void> };

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export async function startService(opts: TServiceOptions): Promise<TService> {
  // --- mode 1: the typed client (decide + outcomes, fail-static) ---
  const sy = new SwitchyardClient({
    baseUrl: opts.switchyardUrl,
    apiKey: opts.apiKey,
    timeoutMs: 500,
    staticOrder: opts.staticOrder ?? { SEND_SMS: ["provider_A", "provider_B"] },
  });
  // --- mode 2: local evaluation on the routing snapshot, records shipped to the decision log ---
  const local = new LocalRouter({ client: sy, engine: { decide } });
  await local.start().catch(() => {});
  // --- mode 3: the official openai client, pointed at Switchyard ---
  const ai = new OpenAI({ baseURL: `${opts.switchyardUrl}/api/v1/openai`, apiKey: opts.apiKey, maxRetries: 1 });

  async function sendSms(to: string, text: string, requestId: string | undefined, inProcess: boolean) {
    const req = { operation: "SEND_SMS", region: "EU", requestId };
    const d: TDecision = inProcess && local.version !== null ? local.decide(req) : await sy.decide(req);
    for (const [retryCount, provider] of d.order.entries()) {
      const t0 = performance.now();
      const base = opts.providerUrls[provider];
      let status = 0;
      try {
        if (base)
          status = (
            await fetch(`${base}/sms/${encodeURIComponent(to)}`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ to, text }),
              signal: AbortSignal.timeout(2_000),
            })
          ).status;
      } catch {
        status = 0;
      }
      const latencyMs = performance.now() - t0;
      const ok = status >= 200 && status < 300;
      sy.reportOutcome({
        type: "provider_call",
        decisionId: d.decisionId,
        provider,
        status: ok ? "success" : "failure",
        ...(ok ? {} : { errorClass: status === 0 ? "network" : status >= 500 ? "http_5xx" : "http_4xx" }),
        ...(status > 0 ? { httpStatus: status } : {}),
        latencyMs,
        retryCount,
      });
      if (ok) return { sent: true, provider, decisionId: d.decisionId, failStatic: d.failStatic, source: d.source };
    }
    return { sent: false, provider: null, decisionId: d.decisionId, failStatic: d.failStatic, source: d.source };
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        if (req.method === "POST" && req.url === "/sms") {
          const body = await readJson(req);
          const r = await sendSms(String(body.to), String(body.text), typeof body.requestId === "string" ? body.requestId : undefined, body.local === true);
          reply(res, r.sent ? 200 : 502, r);
        } else if (req.method === "POST" && req.url === "/chat") {
          const body = await readJson(req);
          const { data, response } = await ai.chat.completions
            .create({ model: "LLM_CHAT@EU", messages: [{ role: "user", content: String(body.prompt) }] })
            .withResponse();
          reply(res, 200, {
            text: data.choices[0]?.message.content,
            usage: data.usage,
            provider: response.headers.get("x-switchyard-provider"),
            decisionId: response.headers.get("x-switchyard-decision-id"),
          });
        } else if (req.method === "GET" && req.url === "/stats") {
          reply(res, 200, sy.stats());
        } else reply(res, 404, { error: "not found" });
      } catch (err) {
        reply(res, err instanceof OpenAI.APIError ? (err.status ?? 502) : 502, { error: (err as Error).message });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    switchyard: sy,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await local.close();
      await sy.close();
    },
  };
}
