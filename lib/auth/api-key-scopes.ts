/** Data-plane API key scopes. No Node imports: the console's client forms list them too. */
export const API_KEY_SCOPES = ["decide", "outcomes", "read", "control", "metrics"] as const;
export type TApiKeyScope = (typeof API_KEY_SCOPES)[number];
