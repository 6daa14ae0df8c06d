import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import "./globals.css";

export const metadata: Metadata = {
  title: "Switchyard",
  description: "Adaptive, explainable routing across third-party providers",
};

// Chooses the theme before first paint so the page never flashes the wrong one.
const themeScript = `try{var t=localStorage.getItem("sy-theme")||(matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light");document.documentElement.dataset.theme=t}catch(e){}`;

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body>
        <header className="flex items-center gap-6 border-b px-5 py-3" style={{ borderColor: "var(--border)", background: "var(--panel)" }}>
          <Link href="/" className="text-base font-semibold tracking-tight">
            Switchyard
          </Link>
          <nav className="flex gap-4 text-sm" style={{ color: "var(--muted)" }}>
            <Link href="/">Catalogue</Link>
          </nav>
        </header>
        <main className="mx-auto max-w-7xl px-5 py-5">{children}</main>
      </body>
    </html>
  );
}
