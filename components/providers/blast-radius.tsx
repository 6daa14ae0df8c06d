"use client";

import type { TTrafficShareRow } from "@/lib/console/traffic/list-traffic-shares";
import { pct, utc } from "../format";

export type TBlastDraft = { kind: "routing_kill_switch" | "provider_kill" | "provider_pin"; provider: string | null; operation: string; region: string };

/** One provider in one affected (operation, region): its share now and after; null after means the static priority order decides. */
export type TBlastRow = { operation: string; region: string; provider: string; now: number; after: number | null; note: string | null };

const ALL = "";

/** What the kill switch's static order needs: each operation's priority order and the breakers now ("provider|region" → state). */
export type TStaticOrder = { priority: Record<string, string[]>; breakers: Record<string, string> };

/**
 * The kill switch hands each (operation, region) to the first provider of the factor list's
 * priority order that serves the region and whose breaker is not open: it gets everything, at
 * once, with no gradual failback. A provider ahead of it whose breaker is open takes everything
 * back the moment the breaker closes, which the note says.
 */
function staticOrderRows(group: TTrafficShareRow[], regionsOf: Map<string, string[]>, order: TStaticOrder): TBlastRow[] {
  const { operation, region } = group[0]!;
  const serving = (order.priority[operation] ?? []).filter((p) => (regionsOf.get(p) ?? []).includes(region));
  const open = (p: string) => order.breakers[`${p}|${region}`] === "open";
  const head = serving.find((p) => !open(p)) ?? serving[0] ?? null;
  const providers = [...new Set([...group.map((s) => s.provider), ...(head ? [head] : [])])];
  const ahead = head ? serving.slice(0, serving.indexOf(head)) : [];
  return providers.map((provider) => {
    const now = group.find((s) => s.provider === provider)?.share ?? 0;
    if (head === null) return { operation, region, provider, now, after: null, note: "static priority order" };
    const note = provider === head ? "first in static order" : ahead.includes(provider) ? "breaker open: takes all traffic back once it closes" : null;
    return { operation, region, provider, now, after: provider === head ? 1 : 0, note };
  });
}

/**
 * Every provider in every (operation, region) the override touches, with the share it loses or
 * gains. A pin gives the pinned provider everything and takes it from the others; a kill moves
 * the killed provider's share to the rest in proportion to what they carry now (the controller
 * then re-plans); the kill switch hands every share to the static priority order.
 */
export function computeBlastRadius(shares: TTrafficShareRow[], regionsOf: Map<string, string[]>, d: TBlastDraft, order?: TStaticOrder): TBlastRow[] {
  const inScope = shares.filter((s) => (d.operation === ALL || s.operation === d.operation) && (d.region === ALL || s.region === d.region));
  const pairs = new Map<string, TTrafficShareRow[]>();
  for (const s of inScope) pairs.set(`${s.operation}|${s.region}`, [...(pairs.get(`${s.operation}|${s.region}`) ?? []), s]);
  const rows: TBlastRow[] = [];
  for (const group of pairs.values()) {
    const { operation, region } = group[0]!;
    const target = group.find((s) => s.provider === d.provider);
    if (d.kind === "routing_kill_switch") {
      if (order) rows.push(...staticOrderRows(group, regionsOf, order));
      else rows.push(...group.map((s) => ({ operation, region, provider: s.provider, now: s.share, after: null, note: "static priority order" })));
    } else if (d.kind === "provider_pin") {
      if (!(regionsOf.get(d.provider ?? "") ?? []).includes(region)) continue; // a pin cannot apply where the provider does not serve
      rows.push(...group.map((s) => ({ operation, region, provider: s.provider, now: s.share, after: s.provider === d.provider ? 1 : 0, note: null })));
      if (!target) rows.push({ operation, region, provider: d.provider!, now: 0, after: 1, note: null });
    } else if (target) {
      const rest = group.filter((s) => s !== target);
      const restTotal = rest.reduce((a, s) => a + s.share, 0);
      rows.push({ operation, region, provider: target.provider, now: target.share, after: 0, note: "excluded" });
      for (const s of rest) {
        const after = restTotal > 0 ? s.share + (target.share * s.share) / restTotal : 1 / rest.length;
        rows.push({ operation, region, provider: s.provider, now: s.share, after, note: null });
      }
    }
  }
  return rows;
}

function Change({ row }: { row: TBlastRow }) {
  if (row.after === null) return <span className="muted">{row.note}</span>;
  const delta = row.after - row.now;
  const note = row.note && row.note !== "excluded" ? <span className="muted"> · {row.note}</span> : null;
  if (Math.abs(delta) < 0.0005) return <span className="muted">unchanged{note}</span>;
  return (
    <span data-testid="blast-change">
      <span style={{ color: delta > 0 ? "var(--ok)" : "var(--bad)" }}>
        {delta > 0 ? "gains" : "loses"} {pct(Math.abs(delta))}
      </span>
      {note}
    </span>
  );
}

/** What the override would touch: each provider's share now and after, per operation and region. */
export function BlastRadius({ rows, sharesAt, emptyText }: { rows: TBlastRow[]; sharesAt: number; emptyText: string }) {
  const losing = new Set(rows.filter((r) => r.after !== null && r.after < r.now - 0.0005).map((r) => r.provider));
  const gaining = new Set(rows.filter((r) => r.after !== null && r.after > r.now + 0.0005).map((r) => r.provider));
  return (
    <section className="panel" aria-label="Blast radius" data-testid="blast-radius">
      <h3 className="panel-title">
        Blast radius <span className="muted font-normal">· current shares as of {utc(sharesAt)}</span>
      </h3>
      {/* Focusable so keyboard users can scroll a long list (axe: scrollable-region-focusable). */}
      <div className="table-scroll" style={{ maxHeight: 220, overflowY: "auto" }} tabIndex={0} role="region" aria-label="Blast radius by operation and region">
        <table className="dense">
          <thead>
            <tr>
              <th>Operation</th>
              <th>Region</th>
              <th>Provider</th>
              <th>Share now</th>
              <th>After</th>
              <th>Change</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={6} className="muted">
                  {emptyText}
                </td>
              </tr>
            ) : (
              rows.map((r) => (
                <tr key={`${r.operation}|${r.region}|${r.provider}`} data-testid={`blast-${r.operation}-${r.region}-${r.provider}`}>
                  <td className="mono">{r.operation}</td>
                  <td className="mono">{r.region}</td>
                  <td className="mono">{r.provider}</td>
                  <td className="mono">{pct(r.now)}</td>
                  <td className="mono">{r.after === null ? "–" : pct(r.after)}</td>
                  <td>
                    <Change row={r} />
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <p className="muted px-3 py-2 text-xs" data-testid="blast-summary">
        {rows.length > 0
          ? `${new Set(rows.map((s) => s.operation)).size} operation(s), ${new Set(rows.map((s) => s.region)).size} region(s) affected. ` +
            `Losing traffic: ${[...losing].join(", ") || "none"}. Gaining: ${[...gaining].join(", ") || "none"}. `
          : null}
        Effective on every instance as soon as it is saved.
      </p>
    </section>
  );
}
