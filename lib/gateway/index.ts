// The public surface of lib/gateway: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { ZHttpJsonOptions } from "./adapters/http-json";
export { addressPolicy, addressPolicyFromEnv, addressRefusal, forbiddenHostName } from "./address-policy";
export { fullJitterDelay } from "./backoff";
export { spendWindowsAt } from "./budget";
export { ADAPTER_KINDS, DEFAULT_OPERATION_LIMITS, type TOperationLimits, ZProviderAdapterRow } from "./config";
export { type TGatewayContext } from "./context";
export { CREDENTIAL_REF_PATTERN, credentialHostProblem, resolveCredential } from "./credentials";
export { type Gateway, gatewayRefreshMsFromEnv, startGateway } from "./gateway";
export { createHttp1Client } from "./http1-client";
export { credentialRefProblem, secretNamespaceFromEnv } from "./secret-namespace";
export { createSseParser } from "./sse";
