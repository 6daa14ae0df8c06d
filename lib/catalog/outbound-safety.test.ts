import { describe, expect, it } from "vitest";
import { baseUrlProblem, outboundSettingsFromEnv } from "./outbound-safety";

/** Production without any allowance: what an admin's or a control key's adapter may point at. */
const production = outboundSettingsFromEnv({ NODE_ENV: "production" });

describe("adapter base URLs at write time (SSRF)", () => {
  it.each([
    ["https://127.0.0.1:5432", "loopback"],
    ["https://[::1]/v1", "loopback"],
    ["https://2130706433/", "loopback"],
    ["https://0x7f000001/", "loopback"],
    ["https://0177.0.0.1/", "loopback"],
    ["https://127.1/", "loopback"],
    ["https://[::ffff:127.0.0.1]/", "loopback"],
    ["https://localhost:3000", "loopback"],
    ["https://169.254.169.254/latest/meta-data", "cloud metadata"],
    ["https://metadata.google.internal/computeMetadata/v1", "cloud metadata"],
    ["https://10.0.0.1/", "private"],
    ["https://192.168.0.10/", "private"],
    ["https://[fd00::1]/", "unique-local"],
    ["https://[fe80::1]/", "link-local"],
    ["https://100.64.0.1/", "carrier-grade NAT"],
    ["https://0.0.0.0/", "this network"],
  ])("refuses %s (%s)", (url, label) => {
    expect(baseUrlProblem(url, production)).toContain(`a ${label}`);
  });

  it("still takes public hosts, and private ranges the operator allows", () => {
    expect(baseUrlProblem("https://api.provider.example/v1", production)).toBeNull();
    expect(baseUrlProblem("https://93.184.216.34/", production)).toBeNull();
    const allowed = outboundSettingsFromEnv({ NODE_ENV: "production", SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS: "10.0.0.0/24" });
    expect(baseUrlProblem("https://10.0.0.1/", allowed)).toBeNull();
    expect(baseUrlProblem("https://10.0.1.1/", allowed)).toMatch(/private/);
    expect(baseUrlProblem("https://127.0.0.1:9999", outboundSettingsFromEnv({ NODE_ENV: "test" }))).toBeNull();
  });
});
