import type { ReactNode } from "react";

/** A page's one <h1>: what the page is, for the eye and for screen readers' heading navigation alike. */
export function PageTitle({ children }: { children: ReactNode }) {
  return <h1 className="text-base font-semibold tracking-tight">{children}</h1>;
}
