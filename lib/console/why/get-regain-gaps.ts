import "server-only";
import { restoreControllerState, type TRegainGap } from "@/router-core/index";
import { getPrisma } from "@/lib/db";

/**
 * The hysteresis gaps at the controller's last tick for (operation, region): what each displaced
 * former leader lacks to take traffic back. Read from the stored controller state the leader
 * writes every tick; a state that does not restore shows no gaps rather than failing the page.
 */
export async function getRegainGaps(operation: string, region: string): Promise<TRegainGap[]> {
  const row = await getPrisma().controllerState.findUnique({ where: { operationKey_region: { operationKey: operation, region } } });
  if (!row) return [];
  try {
    return restoreControllerState(row.state).regain ?? [];
  } catch {
    return [];
  }
}
