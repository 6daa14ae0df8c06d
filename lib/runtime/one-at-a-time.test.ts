import { describe, expect, it } from "vitest";
import { oneAtATime } from "./one-at-a-time";

describe("oneAtATime", () => {
  it("runs overlapping calls one after another, so the last started is the last applied", async () => {
    // A reload whose read is slow (the first) must not finish after one started later.
    let source = "old";
    let applied = "";
    let running = 0;
    let overlapped = false;
    const delays = [30, 1];
    const reload = oneAtATime(async () => {
      running++;
      if (running > 1) overlapped = true;
      const read = source;
      await new Promise((r) => setTimeout(r, delays.shift() ?? 1));
      applied = read;
      running--;
      return read;
    });
    const first = reload();
    // The change lands while the first reload is in flight, then a second reload is asked for.
    await new Promise((r) => setTimeout(r, 5));
    source = "new";
    const second = reload();
    expect(await Promise.all([first, second])).toEqual(["old", "new"]);
    expect(applied).toBe("new");
    expect(overlapped).toBe(false);
  });

  it("goes on after a call that failed, and hands each caller its own outcome", async () => {
    let n = 0;
    const call = oneAtATime(async () => {
      n++;
      if (n === 1) throw new Error("database away");
      return n;
    });
    const [a, b] = await Promise.allSettled([call(), call()]);
    expect(a).toEqual({ status: "rejected", reason: new Error("database away") });
    expect(b).toEqual({ status: "fulfilled", value: 2 });
  });
});
