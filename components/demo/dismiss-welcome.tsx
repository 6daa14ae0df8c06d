"use client";

import { useRouter } from "next/navigation";
import { DEMO_WELCOME_COOKIE } from "./welcome-cookie";

/** Remembers the dismissal for a year in this browser and re-renders the page without the welcome panel. */
export function DismissWelcome() {
  const router = useRouter();
  return (
    <button
      type="button"
      className="btn"
      data-testid="demo-welcome-dismiss"
      onClick={() => {
        document.cookie = `${DEMO_WELCOME_COOKIE}=dismissed; path=/; max-age=31536000; samesite=lax`;
        router.refresh();
      }}
    >
      Dismiss
    </button>
  );
}
