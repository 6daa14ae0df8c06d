/**
 * One thing bench:gateway loads. pid: the process serving the target, for its CPU per request;
 * postgresPid: its database server's, when it has one on this machine.
 */
export type TTarget = { label: string; url: string; headers: Record<string, string>; body: string; pid?: number; postgresPid?: number | null };

/** Switchyard started as a gateway target, with what stops it. */
export type TSwitchyardTarget = { target: TTarget; close(): Promise<void> };
