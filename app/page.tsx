import { listCatalog } from "@/lib/catalog/list-catalog";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const { providers, operations } = await listCatalog();
  return (
    <div className="flex flex-col gap-5">
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Providers</h2>
        <table className="dense" data-testid="providers-table">
          <thead>
            <tr>
              <th>Key</th>
              <th>Name</th>
              <th>Regions</th>
              <th>Compliance</th>
              <th>Cost / request</th>
              <th>Credentials</th>
              <th>Enabled</th>
            </tr>
          </thead>
          <tbody>
            {providers.map((p) => (
              <tr key={p.key} data-testid={`provider-${p.key}`}>
                <td className="mono">{p.key}</td>
                <td>{p.displayName}</td>
                <td>{p.supportedRegions.map((r) => <span key={r} className="tag">{r}</span>)}</td>
                <td>{p.complianceTags.map((t) => <span key={t} className="tag">{t}</span>)}</td>
                <td className="mono">${p.costPerRequest}</td>
                <td style={{ color: p.credentialStatus === "valid" ? "var(--ok)" : "var(--bad)" }}>{p.credentialStatus}</td>
                <td>{p.enabled ? "yes" : "no"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Operations</h2>
        <table className="dense" data-testid="operations-table">
          <thead>
            <tr>
              <th>Key</th>
              <th>Description</th>
              <th>Criticality</th>
            </tr>
          </thead>
          <tbody>
            {operations.map((o) => (
              <tr key={o.key}>
                <td className="mono">{o.key}</td>
                <td>{o.description}</td>
                <td>{o.criticality}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
