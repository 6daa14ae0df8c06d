"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";

export const NAV_ITEMS = [
  { href: "/", label: "Overview", key: "o" },
  { href: "/why", label: "Why traffic moved", key: "w" },
  { href: "/decisions", label: "Decisions", key: "d" },
  { href: "/providers", label: "Providers", key: "p" },
  { href: "/catalog", label: "Catalogue", key: "k" },
  { href: "/gateway", label: "Gateway", key: "x" },
  { href: "/factor-lists", label: "Factor lists", key: "f" },
  { href: "/shadow", label: "Shadow", key: "s" },
  { href: "/evaluation", label: "Evaluation", key: "e" },
  { href: "/audit", label: "Audit", key: "a" },
  { href: "/governance/access", label: "Users & keys", key: "u" },
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

/** Top navigation; "g" then a letter jumps to a page, "t" toggles the theme. */
export function Nav() {
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
  return (
    <nav className="flex gap-1 text-sm" aria-label="Console">
      {items.map((item) => {
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
          </Link>
        );
      })}
    </nav>
  );
}
