import { DataTable } from "@/components/data-table";
import type { TCatalogView } from "@/lib/catalog/get-catalog";
import { CertificationForm, DeleteDeclarationButton, RegionForm } from "./declaration-forms";

const WRAP = { whiteSpace: "normal", minWidth: 80 } as const;

/** Declared regions with their rule and declared certifications; admins declare more. */
export function RegionsSection({ regions, certifications, canEdit }: Pick<TCatalogView, "regions" | "certifications"> & { canEdit: boolean }) {
  return (
    <section className="panel" id="regions">
      <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Regions and certifications</h2>
      <p className="muted px-3 pb-2 text-xs">
        Providers, operations and factor lists name only these. A region&apos;s rule applies to every operation there, on top of each operation&apos;s own
        requirements.
      </p>
      {canEdit && <CertificationForm />}
      {canEdit && <RegionForm />}
      <DataTable
        columns={["Region", "Every provider serving it must hold", "Version", ...(canEdit ? [""] : [])]}
        empty="No region declared yet."
        testId="regions-table"
      >
        {regions.map((r) => (
          <tr key={r.name} data-testid={`region-row-${r.name}`}>
            <td className="mono">{r.name}</td>
            <td style={WRAP}>{r.requires.join(", ") || "—"}</td>
            <td>{r.version}</td>
            {canEdit && (
              <td style={WRAP}>
                <DeleteDeclarationButton kind="region" name={r.name} />
              </td>
            )}
          </tr>
        ))}
      </DataTable>
      <DataTable columns={["Certification", "Description", ...(canEdit ? [""] : [])]} empty="No certification declared yet." testId="certifications-table">
        {certifications.map((c) => (
          <tr key={c.name} data-testid={`certification-row-${c.name}`}>
            <td className="mono">{c.name}</td>
            <td style={WRAP}>{c.description || "—"}</td>
            {canEdit && (
              <td style={WRAP}>
                <DeleteDeclarationButton kind="certification" name={c.name} />
              </td>
            )}
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
