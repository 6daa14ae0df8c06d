import { describe, expect, it } from "vitest";
import { eventLoopDelay, startEventLoopDelayMonitor } from "./event-loop-delay";

describe("event loop delay", () => {
  it("reports nothing before the first window, then a stall of the loop as the window's max (resolution subtracted)", async () => {
    startEventLoopDelayMonitor(300);
    expect(eventLoopDelay()).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    const t = performance.now();
    while (performance.now() - t < 80) {
      // A synchronous stall of 80 ms.
    }
    await new Promise((r) => setTimeout(r, 400));
    const lag = eventLoopDelay();
    expect(lag).not.toBeNull();
    expect(lag!.max).toBeGreaterThanOrEqual(50);
    expect(lag!.p50).toBeLessThan(lag!.max);
  });
});
