import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { DataTable } from "@/components/data-table";
import { AdapterForm, ChangeDecision, GatewayLimitsForm, OperationForm, ProviderEnabledButton, ProviderForm } from "./catalog-forms";
import { RegionsSection } from "./regions-section";
import { FirstSteps } from "@/components/catalog/first-steps";
import { getPrisma } from "@/lib/db/client";
import { rolesGrant } from "@/lib/auth/permissions";
import { publicOrigin } from "@/lib/auth/same-origin";
import { SESSION_COOKIE, resolveSession } from "@/lib/auth/session";
import { formatRequirements } from "@/lib/catalog/form-input";
import { getCatalog } from "@/lib/catalog/get-catalog";
import { getFirstSteps } from "@/lib/catalog/get-first-steps";
import { pendingChangeRequesters } from "@/lib/catalog/pending-change-requesters";
import { PageTitle } from "@/components/page-title";

export const dynamic = "force-dynamic";

// Long values wrap inside their cell so the tables fit the page and the row's Disable button stays in view.
const WRAP = { whiteSpace: "normal", minWidth: 80 } as const;
const BREAK = { whiteSpace: "normal", wordBreak: "break-all", minWidth: 120 } as const;

const CREDENTIAL_LABEL = { resolved: "resolved", missing: "missing on this instance", none: "none needed" } as const;

/** Providers, operations, adapters and gateway limits; admins edit, compliance approves what moves compliance. */
export default async function CatalogPage() {
  const prisma = getPrisma();
  const me = await resolveSession(prisma, (await cookies()).get(SESSION_COOKIE)?.value);
  if (!me) redirect("/login?next=/catalog");
  const [catalog, first] = await Promise.all([getCatalog(prisma), getFirstSteps(prisma)]);
  const canEdit = rolesGrant(me.roles, "catalog.edit");
  const canReview = rolesGrant(me.roles, "catalog.approve_compliance");
  const h = await headers();
  const origin = publicOrigin() ?? `http://${h.get("host") ?? "localhost:3000"}`;
  const requesterIds = await pendingChangeRequesters(prisma);

  return (
    <div className="flex flex-col gap-5">
      <PageTitle>Catalogue</PageTitle>
      {!first.allDone && <FirstSteps steps={first.steps} operation={first.operation} origin={origin} />}
      <section className="panel" id="pending-changes">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Changes waiting for review</h2>
        <DataTable
          columns={["Target", "What needs review (compliance, credentials, adapters)", "Asked by", "Asked", ""]}
          empty="No change waiting."
          testId="pending-changes-table"
        >
          {catalog.pendingChanges.map((c) => (
            <tr key={c.id} data-testid={`pending-change-${c.targetKey}`}>
              <td className="mono">
                {c.targetType} {c.targetKey}
              </td>
              <td style={WRAP}>{c.reasons.join("; ")}</td>
              <td>{c.requestedBy}</td>
              <td>{c.requestedAt.replace("T", " ").slice(0, 19)}</td>
              <td>{canReview && <ChangeDecision id={c.id} canApprove={requesterIds.get(c.id) !== me.userId} />}</td>
            </tr>
          ))}
        </DataTable>
      </section>
      <RegionsSection regions={catalog.regions} certifications={catalog.certifications} canEdit={canEdit} />
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Providers</h2>
        {canEdit && <ProviderForm />}
        <DataTable
          columns={["Key", "Name", "Regions", "Certifications", "Cost", "Credential", "Adapter", "Enabled", "Named by", ""]}
          empty="No provider yet: add the accounts you route between."
          testId="providers-catalog-table"
        >
          {catalog.providers.map((p) => (
            <tr key={p.key} data-testid={`provider-row-${p.key}`}>
              <td className="mono">{p.key}</td>
              <td style={WRAP}>{p.displayName}</td>
              <td style={WRAP}>{p.regions.join(", ")}</td>
              <td style={WRAP}>{p.certifications.join(", ") || "—"}</td>
              <td className="mono">{p.costPerRequest}</td>
              <td data-testid={`credential-${p.key}`} style={BREAK}>
                {p.credentialRef ? (
                  <>
                    <span className="mono">{p.credentialRef}</span> ({CREDENTIAL_LABEL[p.credentialState]})
                  </>
                ) : (
                  CREDENTIAL_LABEL.none
                )}
              </td>
              <td style={BREAK}>{p.adapter ? `${p.adapter.kind} → ${p.adapter.baseUrl}` : "—"}</td>
              <td>{p.enabled ? "yes" : "no"}</td>
              <td style={WRAP}>{p.usedBy || "—"}</td>
              <td>{canEdit && <ProviderEnabledButton providerKey={p.key} enabled={p.enabled} />}</td>
            </tr>
          ))}
        </DataTable>
        {canEdit &&
          catalog.providers.map((p) => (
            <details key={p.key} className="border-t px-3" style={{ borderColor: "var(--border)" }}>
              <summary className="cursor-pointer py-2 text-sm">
                Edit {p.key} and its adapter <span className="muted text-xs">(version {p.version})</span>
              </summary>
              <ProviderForm value={p} />
              <AdapterForm providerKey={p.key} value={p.adapter} />
            </details>
          ))}
      </section>
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Operations</h2>
        {canEdit && <OperationForm />}
        <DataTable
          columns={["Key", "Description", "Criticality", "Required certifications", "Gateway limits", "Live policies"]}
          empty="No operation yet."
          testId="operations-catalog-table"
        >
          {catalog.operations.map((o) => (
            <tr key={o.key} data-testid={`operation-row-${o.key}`}>
              <td className="mono">{o.key}</td>
              <td style={WRAP}>{o.description}</td>
              <td>{o.criticality}</td>
              <td style={WRAP}>{formatRequirements(o.regionRequirements) || "—"}</td>
              <td>{o.gatewayLimits ? `${o.gatewayLimits.deadlineMs} ms, ${o.gatewayLimits.maxAttempts} attempts` : "defaults"}</td>
              <td style={WRAP}>{o.livePolicies || "—"}</td>
            </tr>
          ))}
        </DataTable>
        {canEdit &&
          catalog.operations.map((o) => (
            <details key={o.key} className="border-t px-3" style={{ borderColor: "var(--border)" }}>
              <summary className="cursor-pointer py-2 text-sm">
                Edit {o.key} and its gateway limits <span className="muted text-xs">(version {o.version})</span>
              </summary>
              <OperationForm
                value={{
                  key: o.key,
                  description: o.description,
                  criticality: o.criticality,
                  regionRequirements: formatRequirements(o.regionRequirements),
                  enabled: o.enabled,
                }}
              />
              <GatewayLimitsForm operationKey={o.key} value={o.gatewayLimits} />
            </details>
          ))}
      </section>
    </div>
  );
}
