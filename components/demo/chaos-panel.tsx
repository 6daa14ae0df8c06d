"use client";

import Link from "next/link";
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { controlRequest } from "@/components/providers/control-request";
import type { TFaultRow } from "@/lib/demo/to-fault";
import { FaultForm, useFaultForm, type TProviderOption } from "./fault-form";
import { FaultsTable } from "./faults-table";

/** The faults of the last hour, refreshed every 2 s, with the calls that inject and end them. */
function useDemoFaults(setError: (e: string | null) => void) {
  const qc = useQueryClient();
  const faults = useQuery({
    queryKey: ["demo-faults"],
    queryFn: async () => {
      const res = await fetch("/api/demo/faults", { cache: "no-store" });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return (await res.json()) as { faults: TFaultRow[]; now: number };
    },
    refetchInterval: 2_000,
  });
  const inject = useMutation({
    mutationFn: async (body: Record<string, unknown>) => {
      const r = await controlRequest<{ fault: TFaultRow }>("/api/demo/faults", "POST", body);
      if (!r.ok) throw new Error(r.error.fields.length > 0 ? r.error.fields.map((f) => `${f.path}: ${f.message}`).join("; ") : r.error.message);
      return r.value.fault;
    },
    onSuccess: () => {
      setError(null);
      void qc.invalidateQueries({ queryKey: ["demo-faults"] });
    },
    onError: (e) => setError(e instanceof Error ? e.message : String(e)),
  });
  const end = useMutation({
    mutationFn: async (id: string) => {
      const r = await controlRequest(`/api/demo/faults/${id}/end`, "POST");
      if (!r.ok) throw new Error(r.error.message);
    },
    onSettled: () => void qc.invalidateQueries({ queryKey: ["demo-faults"] }),
    onError: (e) => setError(e instanceof Error ? e.message : String(e)),
  });
  return { faults, inject, end };
}

/**
 * Degrade a simulated provider in one region and watch Switchyard react on the overview. The
 * faults live in the demo_fault table: the simulator reads them, the overview marks them.
 */
export function ChaosPanel({ providers }: { providers: TProviderOption[] }) {
  const form = useFaultForm(providers);
  const [error, setError] = useState<string | null>(null);
  const { faults, inject, end } = useDemoFaults(setError);
  return (
    <div className="flex flex-col gap-4" data-testid="chaos-panel">
      <section className="panel">
        <div className="panel-title">Inject a provider fault</div>
        <p className="muted px-3 pt-2 text-xs">
          The demo&apos;s simulated services call the real decide and outcome APIs; a fault changes what the simulated provider answers in that region.
          Switchyard only sees the outcomes. Watch the{" "}
          <Link className="underline" href={`/?operation=SEND_SMS&region=${form.effectiveRegion}`}>
            overview
          </Link>{" "}
          while it runs.
        </p>
        <FaultForm form={form} providers={providers} pending={inject.isPending} onSubmit={() => inject.mutate(form.body())} />
        {error && (
          <p role="alert" className="px-3 pb-3 text-sm" style={{ color: "var(--bad)" }}>
            {error}
          </p>
        )}
      </section>
      <FaultsTable list={faults.data?.faults ?? []} now={faults.data?.now ?? 0} ending={end.isPending} onEnd={(id) => end.mutate(id)} />
    </div>
  );
}
