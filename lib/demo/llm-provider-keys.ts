/** The demo's three LLM providers, one per API shape its mock serves (llm-providers.ts, llm-stream-events.ts). */
export const DEMO_LLM_PROVIDERS = ["llm_openai", "llm_anthropic", "llm_gemini"] as const;
export type TDemoLlmProvider = (typeof DEMO_LLM_PROVIDERS)[number];
