import { getViewer } from "@/lib/console/get-viewer";
import { signOutAction } from "@/app/login/actions";

/** Who is signed in and with which roles (what on-call needs to know before pressing anything). */
export async function UserMenu() {
  const viewer = await getViewer();
  if (!viewer) return null;
  return (
    <div className="flex items-center gap-2 text-xs" style={{ color: "var(--muted)" }} data-testid="user-menu">
      <span title={viewer.email}>{viewer.name || viewer.email}</span>
      {viewer.roles.map((r) => (
        <span key={r} className="tag">
          {r}
        </span>
      ))}
      <form action={signOutAction}>
        <button type="submit" className="rounded border px-2 py-1" style={{ borderColor: "var(--border)" }}>
          Sign out
        </button>
      </form>
    </div>
  );
}
