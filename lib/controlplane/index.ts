// The public surface of lib/controlplane: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { approveFactorList } from "./factor-lists/approve-factor-list";
export { ZChangeOwnPasswordBody } from "./users/change-own-password";
export { ZDecideRoleGrantBody } from "./role-grants/confirm-role-grant";
export { ensureAdminFromEnv } from "./users/create-admin";
export { ZCreateApiKeyBody } from "./api-keys/create-api-key";
export { createFactorListDraft } from "./factor-lists/create-factor-list-draft";
export { ZCreateUserBody } from "./users/create-user";
export { loadDeclaredNames, undeclaredCertifications, undeclaredInRequirements, undeclaredRegions, withDeclared, type TDeclaredNames } from "./declared-names";
export { ZDisableUserBody } from "./users/disable-user";
export { endExpiredOverrides } from "./overrides/end-expired-overrides";
export { weakeningsAgainstActive } from "./factor-lists/version-guards";
export { ZFactorListSource } from "./factor-lists/factor-list-input";
export { getFactorListVersion } from "./factor-lists/get-factor-list-version";
export { listReviewInbox } from "./reviews/list-review-inbox";
export { ZResetPasswordBody } from "./users/reset-user-password";
export { reviewStanding } from "./reviews/review-standing";
export { ZSetUserRolesBody } from "./users/set-user-roles";
export { shadowFactorList } from "./factor-lists/shadow-factor-list";
export { submitFactorList } from "./factor-lists/submit-factor-list";
