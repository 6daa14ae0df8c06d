/** Read-only YAML with line numbers, so a reviewer can point at "line 12". */
export function YamlView({ yaml }: { yaml: string }) {
  const lines = yaml.replace(/\n$/, "").split("\n");
  return (
    <pre className="mono overflow-x-auto p-3 text-xs" style={{ lineHeight: "18px" }} data-testid="yaml-view">
      {lines.map((l, i) => (
        <div key={i}>
          <span className="muted inline-block w-8 pr-3 text-right select-none">{i + 1}</span>
          {l}
        </div>
      ))}
    </pre>
  );
}
