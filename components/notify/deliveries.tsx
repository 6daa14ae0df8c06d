import type { TDeliveryView } from "@/lib/notify";

const STATUS_COLOR: Record<string, string> = { delivered: "var(--ok)", failed: "var(--bad)", pending: "var(--warn)", superseded: "var(--muted)" };

const time = (iso: string) => iso.replace("T", " ").slice(0, 19);

function attemptText(a: TDeliveryView["attempts"][number]): string {
  const answer = a.statusCode === null ? "no answer" : `HTTP ${a.statusCode}`;
  return `#${a.attempt} ${time(a.at)} · ${answer} · ${a.durationMs} ms${a.error ? ` · ${a.error}` : ""}`;
}

/**
 * Notification deliveries with every attempt (status code, error, duration): the incident page
 * shows its incident's, the Notifications page each channel's latest.
 */
export function NotificationDeliveries({
  deliveries,
  showChannel = true,
  testId = "notification-deliveries",
}: {
  deliveries: TDeliveryView[];
  showChannel?: boolean;
  testId?: string;
}) {
  if (deliveries.length === 0) {
    return (
      <p className="muted px-3 py-2 text-xs" data-testid={testId}>
        No notification sent yet.
      </p>
    );
  }
  return (
    <ul className="flex flex-col gap-1 px-3 py-2 text-xs" data-testid={testId}>
      {deliveries.map((d) => (
        <li
          key={d.id}
          data-testid={`delivery-${d.id}`}
          data-status={d.status}
          data-kind={d.eventKind}
          data-attempts={d.attempts.length}
          className="flex flex-col gap-0.5"
        >
          <div className="flex flex-wrap items-baseline gap-x-2">
            <span className="font-semibold" style={{ color: STATUS_COLOR[d.status] ?? "inherit" }}>
              {d.status}
            </span>
            <span className="mono">{d.eventKind}</span>
            {showChannel && d.channel && (
              <span>
                → {d.channel.name} <span className="muted">({d.channel.kind})</span>
              </span>
            )}
            <span className="muted">{time(d.createdAt)}</span>
            {d.nextAttemptAt && <span className="muted">next try {time(d.nextAttemptAt)}</span>}
          </div>
          {d.attempts.length > 0 && (
            <details>
              <summary className="muted cursor-pointer">
                {d.attempts.length} attempt{d.attempts.length === 1 ? "" : "s"}
                {d.lastError ? ` · last error: ${d.lastError}` : ""}
              </summary>
              <ol className="mono flex flex-col gap-0.5 pl-3" style={{ overflowWrap: "anywhere" }}>
                {d.attempts.map((a) => (
                  <li key={a.attempt}>{attemptText(a)}</li>
                ))}
              </ol>
            </details>
          )}
        </li>
      ))}
    </ul>
  );
}
