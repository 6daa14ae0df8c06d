export { SwitchyardClient, type TSwitchyardClientOptions } from "./client.js";
export { SwitchyardError, SwitchyardUnavailableError, type TUnavailableReason } from "./errors.js";
export { parseRetryAfter, retryDelay, type TRetryInfo } from "./http.js";
export type * from "./types.js";
