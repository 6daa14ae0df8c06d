import { failOutcome, passOutcome, type TGateFn } from "./gate";

const PASS = passOutcome("supports_region", "provider serves the request region");
const PASS_ALL = passOutcome("supports_region", "provider serves all regions");

export const supportsRegion: TGateFn = ({ provider, region }) => {
  if (provider.regions.includes(region)) return PASS;
  if (provider.regions.includes("*")) return PASS_ALL;
  return failOutcome("supports_region", `provider does not serve region ${region} (serves ${provider.regions.join(", ") || "no region"})`);
};
