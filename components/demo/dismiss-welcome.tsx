"use client";

import { useRouter } from "next/navigation";
import { DISMISS_WELCOME_COOKIE } from "./welcome-cookie";

/** Remembers the dismissal for a year in this browser and re-renders the page without the welcome panel. */
export function DismissWelcome() {
  const router = useRouter();
  return (
    <button
      type="button"
      className="btn"
      data-testid="demo-welcome-dismiss"
      onClick={() => {
        document.cookie = DISMISS_WELCOME_COOKIE;
        router.refresh();
      }}
    >
      Dismiss
    </button>
  );
}
