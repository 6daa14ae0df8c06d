import { FAULT_KIND_LABELS } from "@/lib/demo/fault-model";
import type { TFaultRow } from "@/lib/demo/to-fault";

function describe(f: TFaultRow): string {
  if (f.kind === "outage") return FAULT_KIND_LABELS.outage;
  if (f.kind === "latency") return `latency ×${f.magnitude}`;
  return `${FAULT_KIND_LABELS[f.kind]} ${Math.round(f.magnitude * 100)}%`;
}

const fmtTime = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour12: false });

function FaultRow({ f, now, ending, onEnd }: { f: TFaultRow; now: number; ending: boolean; onEnd: (id: string) => void }) {
  const active = f.startsAt <= now && now < f.endsAt;
  return (
    <tr data-testid={`fault-${f.id}`} data-active={active}>
      <td className="mono px-3 py-1">{f.provider}</td>
      <td className="mono">{f.region}</td>
      <td>{describe(f)}</td>
      <td className="mono">{fmtTime(f.startsAt)}</td>
      <td className="mono">
        {fmtTime(f.endsAt)}
        {f.endedAt !== null ? " (ended early)" : ""}
      </td>
      <td className="muted">{f.createdBy}</td>
      <td className="pr-3 text-right">
        {active ? (
          <button type="button" className="btn" disabled={ending} onClick={() => onEnd(f.id)} data-testid="chaos-end">
            End now
          </button>
        ) : (
          <span className="muted text-xs">over</span>
        )}
      </td>
    </tr>
  );
}

/** The last hour's faults; an active one can be ended early. */
export function FaultsTable({ list, now, ending, onEnd }: { list: TFaultRow[]; now: number; ending: boolean; onEnd: (id: string) => void }) {
  return (
    <section className="panel">
      <div className="panel-title">Faults (last hour)</div>
      <table className="w-full text-sm" data-testid="chaos-faults">
        <thead>
          <tr className="muted text-left text-xs">
            <th className="px-3 py-1">provider</th>
            <th>region</th>
            <th>fault</th>
            <th>from</th>
            <th>until</th>
            <th>by</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.length === 0 && (
            <tr>
              <td colSpan={7} className="muted px-3 py-2">
                No faults yet.
              </td>
            </tr>
          )}
          {list.map((f) => (
            <FaultRow key={f.id} f={f} now={now} ending={ending} onEnd={onEnd} />
          ))}
        </tbody>
      </table>
    </section>
  );
}
