/** Switchyard answered with an error the caller has to act on (4xx other than 429, or a 5xx after retries). */
export class SwitchyardError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "SwitchyardError";
  }
}

export type TUnavailableReason = "timeout" | "unreachable" | "overloaded" | "rate_limited" | "server_error";

/** Switchyard could not be reached, did not answer within the timeout, or stayed overloaded through the retries. */
export class SwitchyardUnavailableError extends Error {
  constructor(
    readonly reason: TUnavailableReason,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = "SwitchyardUnavailableError";
  }
}
