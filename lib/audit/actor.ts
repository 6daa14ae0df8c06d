/** Who made a control-plane change, as the audit log records it. */
export type TActor = { userId: string | null; label: string; ip: string | null };

/** Automatic changes (override expiry) are made by nobody in particular. */
export const SYSTEM_ACTOR: TActor = { userId: null, label: "system", ip: null };
