import Link from "next/link";
import { EvaluationView } from "@/components/evaluation/evaluation-view";
import { listEvaluationSources, LISTING_1_SOURCE } from "@/lib/console/evaluation/evaluation-sources";
import { getEvaluation } from "@/lib/console/evaluation/get-evaluation";
import { can, getViewer } from "@/lib/console/get-viewer";
import { firstParam } from "@/lib/console/ranges";
import { POLICY_IDS, SCENARIO_IDS, type TPolicyId, type TScenarioId } from "@/router-core/replay";

export const dynamic = "force-dynamic";

const pick = <T extends string>(value: string | undefined, known: readonly T[], fallback: T): T => (known.includes(value as T) ? (value as T) : fallback);

export default async function EvaluationPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const [sources, viewer] = await Promise.all([listEvaluationSources(), getViewer()]);
  const wanted = firstParam(sp.version) ?? LISTING_1_SOURCE.key;
  const source = sources.find((s) => s.key === wanted);
  if (!source) {
    return (
      <p className="panel p-3 text-sm" role="alert">
        No factor-list version <span className="mono">{wanted}</span>.{" "}
        <Link href="/evaluation" className="underline">
          Evaluate the paper&apos;s Listing 1
        </Link>{" "}
        or pick a version there.
      </p>
    );
  }
  const canRun = can(viewer, "evaluation.run");
  const initial = await getEvaluation(source.key, { canRun });
  const selection = {
    scenario: pick<TScenarioId>(firstParam(sp.scenario), SCENARIO_IDS, "outage"),
    policy: pick<TPolicyId>(firstParam(sp.policy), POLICY_IDS, "factor_list"),
  };
  return <EvaluationView sources={sources} initial={initial} canRun={canRun} initialSelection={selection} />;
}
