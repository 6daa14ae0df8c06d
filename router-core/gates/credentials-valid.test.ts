import { describe, expect, it } from "vitest";
import { credentialsValid } from "./credentials-valid";
import { gateInput } from "./gate-input.fixture";

describe("credentials_valid", () => {
  it("passes valid and not-yet-verified credentials", () => {
    expect(credentialsValid(gateInput())).toEqual({ gate: "credentials_valid", passed: true, detail: "credentials valid" });
    expect(credentialsValid(gateInput({}, { credentialStatus: "unknown" }))).toMatchObject({
      passed: true,
      detail: "credentials not verified yet; allowed until a call proves them invalid",
    });
  });

  it("fails invalid and expired credentials, saying which", () => {
    expect(credentialsValid(gateInput({}, { credentialStatus: "invalid" }))).toEqual({
      gate: "credentials_valid",
      passed: false,
      detail: "credentials invalid",
    });
    expect(credentialsValid(gateInput({}, { credentialStatus: "expired" }))).toEqual({
      gate: "credentials_valid",
      passed: false,
      detail: "credentials expired",
    });
  });
});
