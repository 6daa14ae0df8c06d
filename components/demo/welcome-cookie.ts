/** Set when a visitor dismisses the demo welcome panel; read on the server so the panel never flashes. */
export const DEMO_WELCOME_COOKIE = "sy_demo_welcome";

/** The document.cookie assignment that dismisses the panel: for a year, on every console path (not only the page it was dismissed on). */
export const DISMISS_WELCOME_COOKIE = `${DEMO_WELCOME_COOKIE}=dismissed; path=/; max-age=31536000; samesite=lax`;
