"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";

export const NAV_ITEMS = [
  { href: "/", label: "Overview", key: "o" },
  { href: "/incidents", label: "Incidents", key: "i" },
  { href: "/why", label: "Why traffic moved", key: "w" },
  { href: "/decisions", label: "Decisions", key: "d" },
  { href: "/providers", label: "Providers", key: "p" },
  { href: "/catalog", label: "Catalogue", key: "k" },
  { href: "/gateway", label: "Gateway", key: "x" },
  { href: "/factor-lists", label: "Factor lists", key: "f" },
  { href: "/reviews", label: "Reviews", key: "r" },
  { href: "/shadow", label: "Shadow", key: "s" },
  { href: "/evaluation", label: "Evaluation", key: "e" },
  { href: "/audit", label: "Audit", key: "a" },
  { href: "/governance/access", label: "Users & keys", key: "u" },
  // Admins manage channels there; others see who does.
  { href: "/notifications", label: "Notifications", key: "n" },
  // Demo mode's fault injection: listed only for admins in demo mode (the page and its API check both again).
  { href: "/chaos", label: "Chaos", key: "c", demoAdminOnly: true },
] as const;

/** Whether the signed-in user may use the chaos panel; asked once per page load. */
function useChaosAllowed(pathname: string): boolean {
  const [allowed, setAllowed] = useState(false);
  useEffect(() => {
    let live = true;
    fetch("/api/auth/session", { cache: "no-store" })
      .then((res) => (res.ok ? (res.json() as Promise<{ permissions: string[]; demoMode: boolean }>) : null))
      .then((s) => live && setAllowed(Boolean(s?.demoMode && s.permissions.includes("demo.chaos"))))
      .catch(() => live && setAllowed(false));
    return () => {
      live = false;
    };
  }, [pathname]);
  return allowed;
}

function isActive(pathname: string, href: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

/** Top navigation; "g" then a letter jumps to a page, "t" toggles the theme. Badges: `reviewCount`, what waits for this person's review; `openIncidents`, open incidents. */
export function Nav({ reviewCount = 0, openIncidents = 0 }: { reviewCount?: number; openIncidents?: number }) {
  const pathname = usePathname();
  const router = useRouter();
  const chaosAllowed = useChaosAllowed(pathname);
  const items = useMemo(() => NAV_ITEMS.filter((i) => !("demoAdminOnly" in i) || chaosAllowed), [chaosAllowed]);
  useEffect(() => {
    let armed = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.metaKey || e.ctrlKey || e.altKey || (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)))) return;
      if (armed) {
        armed = false;
        const item = items.find((i) => i.key === e.key);
        if (item) router.push(item.href);
        return;
      }
      if (e.key === "g") {
        armed = true;
        clearTimeout(timer);
        timer = setTimeout(() => (armed = false), 1_000);
      } else if (e.key === "t") {
        const root = document.documentElement;
        root.dataset.theme = root.dataset.theme === "dark" ? "light" : "dark";
      }
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      clearTimeout(timer);
    };
  }, [router, items]);
  const links = items.map((item) => {
    const active = isActive(pathname, item.href);
    return (
      <Link
        key={item.href}
        href={item.href}
        aria-current={active ? "page" : undefined}
        title={`g ${item.key}`}
        className="rounded px-2 py-1"
        style={{ color: active ? "var(--text)" : "var(--muted)", background: active ? "var(--bg)" : "transparent", fontWeight: active ? 600 : 400 }}
      >
        {item.label}
        {item.href === "/incidents" && openIncidents > 0 ? (
          <span
            data-testid="incident-badge"
            className="ml-1 rounded-full px-1.5 text-xs font-semibold"
            style={{ background: "var(--bad)", color: "var(--panel)" }}
          >
            {openIncidents}
            <span className="sr-only"> open</span>
          </span>
        ) : null}
        {item.href === "/reviews" && reviewCount > 0 ? (
          <span className="nav-badge" data-testid="review-badge">
            {reviewCount}
            <span className="sr-only"> waiting for your review</span>
          </span>
        ) : null}
      </Link>
    );
  });
  return (
    <>
      <nav className="nav-wide gap-1 text-sm" aria-label="Console">
        {links}
      </nav>
      <NavMenu pathname={pathname} current={items.find((i) => isActive(pathname, i.href))?.label ?? "Menu"}>
        {links}
      </NavMenu>
    </>
  );
}

/**
 * The same links behind one button on narrow screens, where eleven links in a row pushed the
 * page wider than a phone. Escape or a click outside closes it and focus returns to the button;
 * following a link closes it too.
 */
function NavMenu({ pathname, current, children }: { pathname: string; current: string; children: ReactNode }) {
  // Open for the page it was opened on: navigating closes it without an effect resetting state.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>("a")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpenOn(null);
      button.current?.focus();
    };
    const onClick = (e: MouseEvent) => {
      const t = e.target as Node;
      if (!panel.current?.contains(t) && !button.current?.contains(t)) setOpenOn(null);
    };
    window.addEventListener("keydown", onKey);
    window.addEventListener("mousedown", onClick);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener("mousedown", onClick);
    };
  }, [open]);
  return (
    <div className="nav-narrow">
      <button
        ref={button}
        type="button"
        className="btn"
        aria-expanded={open}
        aria-controls="nav-menu"
        aria-label={`Menu (${current})`}
        onClick={() => setOpenOn(open ? null : pathname)}
        data-testid="nav-menu-button"
      >
        <span aria-hidden="true">☰</span> {current}
      </button>
      {open ? (
        <nav
          ref={panel}
          id="nav-menu"
          aria-label="Console"
          className="panel absolute right-2 left-2 z-50 mt-2 flex flex-col gap-1 p-2 text-sm shadow-lg"
          data-testid="nav-menu"
        >
          {children}
        </nav>
      ) : null}
    </div>
  );
}
