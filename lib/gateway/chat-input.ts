import { z } from "zod";
import type { TGatewayRequest } from "./types";

/** The normalised chat input every LLM adapter accepts. */
export const ZChatInput = z.strictObject({
  messages: z
    .array(z.strictObject({ role: z.enum(["system", "user", "assistant"]), content: z.string().max(4_000_000) }))
    .min(1, "messages must hold at least one message"),
  system: z.string().max(1_000_000).optional(),
  maxTokens: z.number().int().min(1).max(1_000_000).default(1024),
  temperature: z.number().min(0).max(2).optional(),
});
export type TChatInput = z.output<typeof ZChatInput>;

/** System messages are folded into `system`: Anthropic and Gemini take it apart from the turns. */
export function toChat(input: TChatInput): NonNullable<TGatewayRequest["chat"]> {
  const systems = input.messages.filter((m) => m.role === "system").map((m) => m.content);
  if (input.system) systems.unshift(input.system);
  const messages = input.messages.filter((m) => m.role !== "system") as Array<{ role: "user" | "assistant"; content: string }>;
  return { messages, system: systems.length > 0 ? systems.join("\n\n") : undefined, maxTokens: input.maxTokens, temperature: input.temperature };
}

/**
 * Tokens a request needs: about four characters per token for the text (the usual estimate for
 * English with BPE tokenizers), a few tokens of framing per message, and the completion it asks for.
 */
export function estimateTokens(chat: NonNullable<TGatewayRequest["chat"]>): number {
  let chars = chat.system?.length ?? 0;
  for (const m of chat.messages) chars += m.content.length;
  return Math.ceil(chars / 4) + 4 * (chat.messages.length + (chat.system ? 1 : 0)) + chat.maxTokens;
}
