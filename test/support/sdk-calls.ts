import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";

export type TServed = { provider: string | null; text: string };
export type TCall = { name: string; run: (region: string) => Promise<TServed> };

/**
 * The six ways an LLM team asks through Switchyard with the official clients (openai chat and
 * responses, @anthropic-ai/sdk messages; each whole and streamed), each returning who served and
 * what it said.
 */
export function sdkCalls(o: OpenAI, a: Anthropic, model: (region: string) => string, attributes?: Record<string, string>): TCall[] {
  const input = "Say hello";
  const messages = [{ role: "user" as const, content: input }];
  // Routing attributes travel as `metadata` on all three APIs.
  const metadata = attributes ? { metadata: attributes } : {};
  return [
    {
      name: "openai chat",
      run: async (r) => {
        const { data, response } = await o.chat.completions.create({ model: model(r), messages, ...metadata }).withResponse();
        return { provider: response.headers.get("x-switchyard-provider"), text: data.choices[0]!.message.content ?? "" };
      },
    },
    {
      name: "openai chat stream",
      run: async (r) => {
        const { data, response } = await o.chat.completions.create({ model: model(r), messages, stream: true, ...metadata }).withResponse();
        let text = "";
        for await (const c of data) text += c.choices[0]?.delta.content ?? "";
        return { provider: response.headers.get("x-switchyard-provider"), text };
      },
    },
    {
      name: "openai responses",
      run: async (r) => {
        const { data, response } = await o.responses.create({ model: model(r), input, ...metadata }).withResponse();
        return { provider: response.headers.get("x-switchyard-provider"), text: data.output_text };
      },
    },
    {
      name: "openai responses stream",
      run: async (r) => {
        const { data, response } = await o.responses.create({ model: model(r), input, stream: true, ...metadata }).withResponse();
        let text = "";
        for await (const ev of data) if (ev.type === "response.output_text.delta") text += ev.delta;
        return { provider: response.headers.get("x-switchyard-provider"), text };
      },
    },
    {
      name: "anthropic messages",
      run: async (r) => {
        const { data, response } = await a.messages.create({ model: model(r), max_tokens: 64, messages, ...metadata }).withResponse();
        return { provider: response.headers.get("x-switchyard-provider"), text: data.content.map((b) => (b.type === "text" ? b.text : "")).join("") };
      },
    },
    {
      name: "anthropic messages stream",
      run: async (r) => {
        const { data, response } = await a.messages.create({ model: model(r), max_tokens: 64, messages, stream: true, ...metadata }).withResponse();
        let text = "";
        for await (const ev of data) if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
        return { provider: response.headers.get("x-switchyard-provider"), text };
      },
    },
  ];
}
