/** An answer ready to send: status, JSON text, headers. */
export type TAnswer = { status: number; body: string; headers: Record<string, string> };

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): TAnswer {
  return { status, body: JSON.stringify(body), headers };
}
