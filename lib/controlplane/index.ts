// The public surface of lib/controlplane: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { approveFactorList } from "./approve-factor-list";
export { ZChangeOwnPasswordBody } from "./change-own-password";
export { ZDecideRoleGrantBody } from "./confirm-role-grant";
export { ensureAdminFromEnv } from "./create-admin";
export { ZCreateApiKeyBody } from "./create-api-key";
export { createFactorListDraft } from "./create-factor-list-draft";
export { ZCreateUserBody } from "./create-user";
export { loadDeclaredNames, undeclaredCertifications, undeclaredInRequirements, undeclaredRegions, withDeclared, type TDeclaredNames } from "./declared-names";
export { ZDisableUserBody } from "./disable-user";
export { endExpiredOverrides } from "./end-expired-overrides";
export { weakeningsAgainstActive } from "./factor-list-helpers";
export { ZFactorListSource } from "./factor-list-input";
export { getFactorListVersion } from "./get-factor-list-version";
export { listReviewInbox } from "./list-review-inbox";
export { ZResetPasswordBody } from "./reset-user-password";
export { reviewStanding } from "./review-standing";
export { ZSetUserRolesBody } from "./set-user-roles";
export { shadowFactorList } from "./shadow-factor-list";
export { submitFactorList } from "./submit-factor-list";
