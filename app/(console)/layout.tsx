import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { KeyboardHelp } from "@/components/keyboard-help";
import { getViewer } from "@/lib/console/get-viewer";

// Every console page shows routing data: a signed-in user of any role, or the login page.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  if (!(await getViewer())) redirect("/login");
  return (
    <>
      {children}
      <KeyboardHelp />
    </>
  );
}
