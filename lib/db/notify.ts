/**
 * Configuration changes (overrides, policy activations, provider catalogue) are announced on
 * one LISTEN/NOTIFY channel; every data-plane instance reloads what the payload names. Called
 * inside the writing transaction, so the notice is delivered only if the change commits.
 */
export const CONFIG_CHANNEL = "switchyard_config";

export type TConfigChange = { kind: "override"; operationKey?: string | null } | { kind: "policy"; operationKey: string } | { kind: "catalog" };

type TExecutor = { $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number> };

export async function notifyConfigChange(tx: TExecutor, change: TConfigChange): Promise<void> {
  await tx.$executeRaw`select pg_notify(${CONFIG_CHANNEL}, ${JSON.stringify(change)})`;
}
