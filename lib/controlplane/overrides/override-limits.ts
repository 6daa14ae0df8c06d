/** How long a pin may run before someone has to look again; a forgotten pin routes around recovery. */
export type TOverrideLimits = { pinMaxExpiryMs: number };

export const DEFAULT_PIN_MAX_EXPIRY_HOURS = 24;

/** SWITCHYARD_PIN_MAX_EXPIRY_HOURS (a positive number, default 24), read when a request needs it. */
export function overrideLimitsFromEnv(env: Record<string, string | undefined>): TOverrideLimits {
  const raw = env.SWITCHYARD_PIN_MAX_EXPIRY_HOURS;
  const hours = raw === undefined || raw.trim() === "" ? DEFAULT_PIN_MAX_EXPIRY_HOURS : Number(raw);
  if (!Number.isFinite(hours) || hours <= 0) throw new Error(`SWITCHYARD_PIN_MAX_EXPIRY_HOURS must be a positive number of hours, got ${JSON.stringify(raw)}`);
  return { pinMaxExpiryMs: Math.round(hours * 3_600_000) };
}
