import Link from "next/link";
import type { TFirstStep } from "@/lib/catalog/get-first-steps";
import { CopyButton } from "./copy-button";

/** The empty state's walk-through: each step in order, the next one to take highlighted, and the first decide as a curl. */
export function FirstSteps({ steps, operation, origin }: { steps: TFirstStep[]; operation: string | null; origin: string }) {
  const next = steps.find((s) => !s.done)?.key;
  const curl = `curl -sS -X POST ${origin}/api/v1/decide \\
  -H "Authorization: Bearer $SWITCHYARD_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"operation":"${operation ?? "SEND_SMS"}","region":"EU","requestId":"first-decide-1"}'`;
  return (
    <section className="panel p-3" data-testid="first-steps">
      <h2 className="pb-2 text-sm font-semibold">Set up Switchyard for your providers</h2>
      <ol className="flex flex-col gap-2 text-sm">
        {steps.map((s, i) => (
          <li key={s.key} data-testid={`first-step-${s.key}`} data-done={s.done ? "1" : "0"} style={{ fontWeight: s.key === next ? 600 : 400 }}>
            {s.done ? "✓" : `${i + 1}.`}{" "}
            <Link href={s.href} className="underline">
              {s.title}
            </Link>
            <span className="muted text-xs"> — {s.hint}</span>
          </li>
        ))}
      </ol>
      <div className="mt-3 flex flex-col gap-1">
        <div className="flex items-center gap-2 text-xs">
          First decide (set SWITCHYARD_KEY to the key): <CopyButton text={curl} label="Copy curl" />
        </div>
        <pre className="mono overflow-x-auto rounded border p-2 text-xs" style={{ borderColor: "var(--border)" }} data-testid="first-decide-curl">
          {curl}
        </pre>
      </div>
    </section>
  );
}
