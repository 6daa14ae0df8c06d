import { failOutcome, passOutcome, type TGateFn } from "./gate";

const PASS = passOutcome("credentials_valid", "credentials valid");
/**
 * Unknown passes: a newly added provider has not been called yet, and failing it would keep it
 * from ever being verified. Only a verified failure (invalid, expired) excludes.
 */
const PASS_UNKNOWN = passOutcome("credentials_valid", "credentials not verified yet; allowed until a call proves them invalid");

export const credentialsValid: TGateFn = ({ provider }) => {
  switch (provider.credentialStatus) {
    case "valid":
      return PASS;
    case "unknown":
      return PASS_UNKNOWN;
    default:
      return failOutcome("credentials_valid", `credentials ${provider.credentialStatus}`);
  }
};
