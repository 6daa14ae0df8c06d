import { sampleMemory } from "./memory";

/**
 * Loaded with `--import` into a server under test (never imported by anything else: it takes
 * over the process's IPC channel): answers "sy:memory" with heap and RSS after a full GC.
 */
if (process.send) {
  process.on("message", (m: unknown) => {
    if (m === "sy:memory") process.send?.({ type: "sy:memory", ...sampleMemory() });
  });
  // The channel must not keep a server alive that was told to stop.
  process.channel?.unref();
}
