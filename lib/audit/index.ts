// The public surface of lib/audit: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { SYSTEM_ACTOR, type TActor } from "./actor";
export { appendAudit } from "./append-audit";
export { canonicalJson } from "./canonical";
export { auditAnchorHealth, startAuditCheckpoints, stopAuditCheckpoints } from "./checkpointer";
