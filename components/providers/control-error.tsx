import type { TControlError } from "./control-request";

/**
 * A refused control-plane call, as the API explained it: the message, then every field error by
 * path. With `plain`, that sentence leads and the API's code and message follow as the detail.
 */
export function ControlErrorView({ error, plain = null }: { error: TControlError | null; plain?: string | null }) {
  if (!error) return null;
  return (
    <div role="alert" className="rounded border px-2 py-1 text-xs" style={{ borderColor: "var(--bad)", color: "var(--bad)" }} data-testid="control-error">
      {plain ? (
        <p className="text-sm" data-testid="control-error-plain">
          {plain}
        </p>
      ) : null}
      <span className="mono">{error.status || "—"}</span> {error.code}: {error.message}
      {error.fields.length > 0 ? (
        <ul className="mt-1 list-disc pl-4">
          {error.fields.map((f, i) => (
            <li key={i}>
              <span className="mono">{f.path || "(body)"}</span>: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
