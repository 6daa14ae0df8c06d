// The public surface of lib/runtime: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { createInsertionOrderedMap } from "./insertion-ordered-map";
export { oneAtATime } from "./one-at-a-time";
export { processSlot, readProcessSlot, writeProcessSlot } from "./process-slots";
export { API_CSP, applyConsoleCsp, commonSecurityHeaders, securityHeaders } from "./security-headers";
