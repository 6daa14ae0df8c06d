import { startService } from "./service";

// npx tsx examples/sms-and-chat/main.ts — SWITCHYARD_URL, SWITCHYARD_API_KEY, PROVIDER_URLS
// ({"provider_A":"http://…"}), PORT. Ctrl-C flushes what the client still holds.
const service = await startService({
  switchyardUrl: process.env.SWITCHYARD_URL ?? "http://127.0.0.1:3000",
  apiKey: process.env.SWITCHYARD_API_KEY ?? "",
  providerUrls: JSON.parse(process.env.PROVIDER_URLS ?? "{}") as Record<string, string>,
  port: Number(process.env.PORT ?? 4000),
});
process.stdout.write(`example service on ${service.url}: POST /sms {to, text}, POST /chat {prompt}, GET /stats\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void service.close().then(() => process.exit(0)));
}
