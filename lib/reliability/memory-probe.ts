import v8 from "node:v8";
import vm from "node:vm";

/**
 * Loaded with `--import` into a server under test: answers "sy:memory" over the IPC channel
 * with heap and RSS measured right after a full collection, so samples compare live memory
 * rather than garbage awaiting collection.
 */
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

export type TMemorySample = { heapUsed: number; rss: number };

export function sampleMemory(): TMemorySample {
  gc();
  const u = process.memoryUsage();
  return { heapUsed: u.heapUsed, rss: u.rss };
}

if (process.send) {
  process.on("message", (m: unknown) => {
    if (m === "sy:memory") process.send?.({ type: "sy:memory", ...sampleMemory() });
  });
  // The channel must not keep a server alive that was told to stop.
  process.channel?.unref();
}
