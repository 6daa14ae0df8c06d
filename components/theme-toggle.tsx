"use client";

export function ThemeToggle() {
  const toggle = () => {
    const root = document.documentElement;
    const next = root.dataset.theme === "dark" ? "light" : "dark";
    root.dataset.theme = next;
    try {
      localStorage.setItem("sy-theme", next);
    } catch {
      // private mode: the choice lasts for this page only
    }
  };
  return (
    <button
      type="button"
      onClick={toggle}
      className="rounded border px-2 py-1 text-xs"
      style={{ borderColor: "var(--border)", color: "var(--muted)" }}
      aria-label="Toggle dark and light theme"
      title="Toggle theme (t)"
    >
      Theme
    </button>
  );
}
