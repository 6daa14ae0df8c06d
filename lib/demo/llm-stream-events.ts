import type { TDemoLlmProvider } from "./llm-provider-keys";

/** One demo answer to stream: its text, the model that "wrote" it and the tokens to report. */
export type TDemoStreamAnswer = { model: string; text: string; inputTokens: number; outputTokens: number };

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

/**
 * A demo answer as the provider's own Server-Sent Events, one string per event in the order sent:
 * OpenAI chat chunks ending `data: [DONE]` (with a usage chunk, as `stream_options.include_usage`
 * asks), Anthropic's message_start … message_stop with a ping, Gemini's streamGenerateContent
 * chunks (`alt=sse`: data-only events, the last carrying finishReason and usageMetadata).
 */
export function demoStreamEvents(provider: TDemoLlmProvider, a: TDemoStreamAnswer, idSuffix: string): string[] {
  const words = a.text.split(/(?<= )/);
  switch (provider) {
    case "llm_openai": {
      const base = { id: `chatcmpl-demo-${idSuffix}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: a.model };
      return [
        sse({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
        ...words.map((w) => sse({ ...base, choices: [{ index: 0, delta: { content: w }, finish_reason: null }] })),
        sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
        sse({
          ...base,
          choices: [],
          usage: { prompt_tokens: a.inputTokens, completion_tokens: a.outputTokens, total_tokens: a.inputTokens + a.outputTokens },
        }),
        "data: [DONE]\n\n",
      ];
    }
    case "llm_anthropic": {
      const message = {
        id: `msg_demo_${idSuffix}`,
        type: "message",
        role: "assistant",
        model: a.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: a.inputTokens, output_tokens: 1 },
      };
      const ev = (type: string, rest: Record<string, unknown> = {}) => sse({ type, ...rest }, type);
      return [
        ev("message_start", { message }),
        ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
        ev("ping"),
        ...words.map((w) => ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: w } })),
        ev("content_block_stop", { index: 0 }),
        ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: a.outputTokens } }),
        ev("message_stop"),
      ];
    }
    case "llm_gemini":
      return words.map((w, i) => {
        const last = i === words.length - 1;
        return sse({
          candidates: [{ content: { role: "model", parts: [{ text: w }] }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
          ...(last
            ? { usageMetadata: { promptTokenCount: a.inputTokens, candidatesTokenCount: a.outputTokens, totalTokenCount: a.inputTokens + a.outputTokens } }
            : {}),
          modelVersion: a.model,
        });
      });
  }
}
