import { describe, expect, it } from "vitest";
import { createJobQueue } from "./jobs";

const waitFor = async (check: () => boolean, ms = 2_000) => {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error("condition not met");
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("execute job queue", () => {
  it("runs a job after its retry-after, re-queues it while nothing is eligible, and keeps the answer for polling", async () => {
    let runs = 0;
    const q = createJobQueue({
      now: Date.now,
      log: () => {},
      run: async () => {
        runs++;
        return runs < 2
          ? { answer: { status: 503, body: "{}", headers: {} }, retryAfterSeconds: 0.05 }
          : { answer: { status: 200, body: JSON.stringify({ ok: true }), headers: {} }, retryAfterSeconds: null };
      },
    });
    const a = q.enqueue("OP", { n: 1 }, 0.05, "k1")!;
    const b = q.enqueue("OP", { n: 2 }, 10, "k1")!;
    expect([a.position, b.position]).toEqual([1, 2]);
    expect(q.get(a.id, "k1")).toMatchObject({ status: "queued", position: 1 });
    await waitFor(() => q.get(a.id, "k1")?.status === "done");
    expect(runs).toBe(2);
    expect(q.get(a.id, "k1")).toEqual({ status: "done", answer: { status: 200, body: '{"ok":true}', headers: {} } });
    expect(q.get(b.id, "k1")).toMatchObject({ status: "queued", position: 1 });
    expect(q.get("nope", "k1")).toBeNull();
    q.close();
  });

  it("shows a job only to the principal that queued it, or to an admin (reader null)", () => {
    const q = createJobQueue({
      now: Date.now,
      log: () => {},
      run: async () => ({ answer: { status: 200, body: "{}", headers: {} }, retryAfterSeconds: null }),
    });
    const job = q.enqueue("OP", {}, 60, "key-a")!;
    expect(q.get(job.id, "key-a")).toMatchObject({ status: "queued" });
    expect(q.get(job.id, "key-b")).toBeNull();
    expect(q.get(job.id, null)).toMatchObject({ status: "queued" });
    q.close();
  });

  it("refuses new jobs when full", () => {
    const q = createJobQueue({
      now: Date.now,
      log: () => {},
      maxQueued: 1,
      run: async () => ({ answer: { status: 200, body: "{}", headers: {} }, retryAfterSeconds: null }),
    });
    expect(q.enqueue("OP", {}, 60, "k1")).not.toBeNull();
    expect(q.enqueue("OP", {}, 60, "k1")).toBeNull();
    q.close();
  });
});
