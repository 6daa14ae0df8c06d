/** One thing bench:gateway loads: where to send, what, and the processes whose CPU counts for it. */
export type TTarget = { label: string; url: string; headers: Record<string, string>; body: string; pid?: number; postgresPid?: number | null };

/** Switchyard started as a gateway target, with what stops it. */
export type TSwitchyardTarget = { target: TTarget; close(): Promise<void> };
