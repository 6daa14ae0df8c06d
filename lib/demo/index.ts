// The public surface of lib/demo: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { applyDemoTimings, demoRate, startDemoTraffic } from "./demo-traffic";
export { endExpiredFaults } from "./end-expired-faults";
export { seedDemo } from "./seed-demo";
