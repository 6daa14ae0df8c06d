/** Shown while a console page's server data loads: blocks at the final sizes, so nothing jumps when it arrives. */
export default function Loading() {
  return (
    <div className="flex flex-col gap-4" aria-busy="true" aria-label="Loading">
      <div className="skeleton" style={{ height: 28, width: 640 }} />
      <div className="panel p-3">
        <div className="skeleton" style={{ height: 300 + 132 }} />
      </div>
      <div className="grid gap-4 lg:grid-cols-[3fr_2fr]">
        <div className="panel skeleton" style={{ height: 180 }} />
        <div className="panel skeleton" style={{ height: 180 }} />
      </div>
    </div>
  );
}
