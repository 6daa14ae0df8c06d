import type { TProviderInfo, TRouterState } from "../../../router-core/index";

/** What a client needs to run router-core's decide() itself, per operation and region. */
export type TRoutingSnapshot = {
  providers: readonly TProviderInfo[];
  operations: Record<
    string,
    {
      policyVersion: string;
      policy: unknown;
      shadow: unknown;
      /** router-core's TRouterState without the catalogue (shared above). */
      regions: Record<string, Omit<TRouterState, "providers">>;
    }
  >;
  dbAvailable: boolean;
};
