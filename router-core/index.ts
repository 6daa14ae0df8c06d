export type { Clock, SimulatedClock } from "./clock";
export { createSimulatedClock, createClock } from "./clock";
export type { Random } from "./random";
export { createSeededRandom } from "./random";
export type {
  TBreakerState,
  TBreakerView,
  TQuotaView,
  TShares,
  TCredentialStatus,
  TProviderInfo,
  TMetricSnapshot,
  TPin,
  TOverrides,
  TRequestContext,
  TRouterState,
} from "./types";
