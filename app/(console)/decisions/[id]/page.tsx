import Link from "next/link";
import { notFound } from "next/navigation";
import { CandidatesTable, DecisionOutcomes, DecisionSummary } from "@/components/decisions/decision-detail";
import { candidateMetricAgeSeconds, getDecision } from "@/lib/console/decisions/get-decision";
import { firstParam } from "@/lib/console/ranges";

export const dynamic = "force-dynamic";

export default async function DecisionPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ id }, sp] = await Promise.all([params, searchParams]);
  const at = Number(firstParam(sp.at));
  const d = await getDecision(id, Number.isFinite(at) && at > 0 ? at : undefined);
  if (!d) notFound();
  const r = d.record;
  const around = new URLSearchParams({
    operation: r.operation,
    region: r.region,
    from: new Date(d.createdAt - 120_000).toISOString(),
    to: new Date(d.createdAt + 120_000).toISOString(),
  });
  return (
    <div className="flex flex-col gap-4" data-testid="decision-detail">
      <div className="flex items-center gap-3 text-sm">
        <Link href="/decisions" className="underline">
          Decisions
        </Link>
        <span className="muted">/</span>
        <h1 className="text-sm font-semibold">
          Decision <span className="mono">{r.id}</span>
        </h1>
        <span className="ml-auto flex gap-2">
          <Link className="btn" href={`/decisions?${around}`}>
            Decisions ±2 min
          </Link>
          <Link className="btn" href={`/why?${new URLSearchParams({ operation: r.operation, region: r.region, at: String(d.createdAt) })}`}>
            Explain this moment
          </Link>
        </span>
      </div>

      <DecisionSummary d={d} />
      <CandidatesTable d={d} ages={Object.fromEntries(r.candidates.map((c) => [c.provider, candidateMetricAgeSeconds(r, c)]))} />
      <DecisionOutcomes d={d} />
    </div>
  );
}
