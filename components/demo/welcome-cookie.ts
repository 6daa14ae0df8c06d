/** Set when a visitor dismisses the demo welcome panel; read on the server so the panel never flashes. */
export const DEMO_WELCOME_COOKIE = "sy_demo_welcome";
