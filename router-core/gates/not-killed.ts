import { constantOutcome, failOutcome, passOutcome, type TGateFn } from "./gate";

const PASS = passOutcome("not_killed", "provider enabled");
const FAIL_KILLED = constantOutcome(failOutcome("not_killed", "provider killed by operator override"));
const FAIL_DISABLED = constantOutcome(failOutcome("not_killed", "provider disabled in the catalog"));

export const notKilled: TGateFn = ({ provider, killed }) => {
  if (killed) return FAIL_KILLED;
  return provider.enabled ? PASS : FAIL_DISABLED;
};
