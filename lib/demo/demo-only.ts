import { isDemoMode, refusal } from "../auth";

/**
 * Chaos exists only in demo mode (embedded database on loopback, simulated traffic). Outside it
 * the routes answer 404 as if they did not exist: faults would only affect a simulator that is
 * not running, and a production console must not offer them.
 */
export function demoOnly(handler: () => Promise<Response>): Promise<Response> {
  if (!isDemoMode()) return Promise.resolve(refusal("not_demo_mode", "fault injection exists only in demo mode (npm start without DATABASE_URL)"));
  return handler();
}
