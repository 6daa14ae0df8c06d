import type { TViewer } from "@/lib/console/get-viewer";

/**
 * Who is signed in and with which roles (what on-call needs to know before pressing anything).
 * The layout passes the viewer and the sign-out action in, so components import nothing from app/.
 */
export function UserMenu({ viewer, signOut }: { viewer: TViewer; signOut: () => Promise<void> }) {
  if (!viewer) return null;
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-2 text-xs" style={{ color: "var(--muted)" }} data-testid="user-menu">
      <span title={viewer.email} className="max-w-[40vw] truncate">
        {viewer.name || viewer.email}
      </span>
      {viewer.roles.map((r) => (
        <span key={r} className="tag">
          {r}
        </span>
      ))}
      <form action={signOut}>
        <button type="submit" className="rounded border px-2 py-1" style={{ borderColor: "var(--border)" }}>
          Sign out
        </button>
      </form>
    </div>
  );
}
