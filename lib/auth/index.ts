// The public surface of lib/auth: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { generateApiKey } from "./api-key-format";
export { API_KEY_SCOPES, type TApiKeyScope } from "./api-key-scopes";
export { stampClientIp } from "./client-ip";
export { isDemoMode, isLoopbackHost, markDemoMode } from "./demo-mode";
export { DEMO_USERS, seedDemoUsers } from "./demo-users";
export { refuseWeakPassword, ZNewPassword } from "./password-policy";
export { hashPassword, verifyPassword, withPasswordSlot } from "./password";
export { permissionsOf, roleGrants, ROLES, type TPermission, type TRole } from "./permissions";
export { isSameOrigin, publicOrigin } from "./same-origin";
export { readCookie, resolveSession, SESSION_COOKIE, type TUserPrincipal } from "./session";
export { sha256Hex } from "./tokens";
export { forgetApiKey, type TApiKeyVerification, verifyApiKey } from "./verify-api-key";
export { refusal, withPermission } from "./with-permission";
