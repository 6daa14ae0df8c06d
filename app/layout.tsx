import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import { Nav } from "@/components/nav";
import { QueryProvider } from "@/components/query-provider";
import { ThemeToggle } from "@/components/theme-toggle";
import { UserMenu } from "@/components/user-menu";
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
          <Nav />
          <div className="ml-auto flex items-center gap-3">
            <UserMenu />
            <ThemeToggle />
          </div>
        </header>
        <QueryProvider>
          <main className="mx-auto max-w-[1600px] px-5 py-5">{children}</main>
        </QueryProvider>
      </body>
    </html>
  );
}
