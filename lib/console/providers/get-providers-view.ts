import "server-only";
import { listCatalog } from "@/lib/catalog";
import { getActivePolicy } from "../factor-lists/get-active-policy";
import { getProviderHealth, loadHealthContext } from "./get-provider-health";
import { listBreakerEvents } from "./list-breaker-events";

/** The providers page: catalogue, health per operation (each over its own policy's window) and breaker history. */
export async function getProvidersView(now = Date.now()) {
  const [catalog, breakerEvents, context] = await Promise.all([listCatalog(), listBreakerEvents(20), loadHealthContext()]);
  // Breaker states and the provider list are read once for all operations, not once per operation.
  const health = await Promise.all(
    catalog.operations.map(async (o) => {
      const policy = await getActivePolicy(o.key);
      return {
        operation: o.key,
        windowMinutes: policy.windowMinutes,
        rows: await getProviderHealth({ operation: o.key, windowMinutes: policy.windowMinutes, minSampleSize: policy.minSampleSize, now, context }),
      };
    }),
  );
  return { now, providers: catalog.providers, health, breakerEvents };
}
