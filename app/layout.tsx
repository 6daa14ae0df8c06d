import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import { headers } from "next/headers";
import { Nav } from "@/components/nav";
import { QueryProvider } from "@/components/query-provider";
import { ThemeToggle } from "@/components/theme-toggle";
import { UserMenu } from "@/components/user-menu";
import { getReviewInbox } from "@/lib/console/factor-lists/get-review-inbox";
import { getViewer } from "@/lib/console/get-viewer";
import { countOpenIncidentsFor } from "@/lib/console/incidents/count-open-incidents";
import { NONCE_HEADER } from "@/lib/runtime/security-headers";
import { signOutAction } from "./login/actions";
import "./globals.css";

export const metadata: Metadata = {
  title: "Switchyard",
  description: "Adaptive, explainable routing across third-party providers",
};

// Chooses the theme before first paint so the page never flashes the wrong one.
const themeScript = `try{var t=localStorage.getItem("sy-theme")||(matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light");document.documentElement.dataset.theme=t}catch(e){}`;

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The server sets a fresh nonce on every request; the content security policy runs only scripts that carry it.
  const [nonce, viewer] = await Promise.all([headers().then((h) => h.get(NONCE_HEADER) ?? undefined), getViewer()]);
  // The Reviews badge; refreshed with the page after every review action (router.refresh re-renders this layout).
  const inbox = await getReviewInbox(viewer);
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body>
        {/* The first Tab stop: keyboard and screen-reader users jump past the navigation to the page. */}
        <a href="#main" className="skip-link">
          Skip to main content
        </a>
        <header
          className="relative flex flex-wrap items-center gap-x-6 gap-y-2 border-b px-3 py-3 sm:px-5"
          style={{ borderColor: "var(--border)", background: "var(--panel)" }}
        >
          <Link href="/" className="text-base font-semibold tracking-tight">
            Switchyard
          </Link>
          <Nav reviewCount={inbox.items.length} openIncidents={await countOpenIncidentsFor(viewer)} />
          <div className="ml-auto flex min-w-0 items-center gap-3">
            <UserMenu viewer={viewer} signOut={signOutAction} />
            <ThemeToggle />
          </div>
        </header>
        <QueryProvider>
          <main id="main" tabIndex={-1} className="mx-auto max-w-[1600px] px-5 py-5 outline-none">
            {children}
          </main>
        </QueryProvider>
      </body>
    </html>
  );
}
