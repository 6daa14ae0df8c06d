import { createElement, type ReactElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeEach, describe, expect, it, vi } from "vitest";

// The welcome panel is a server component: it reads the request's cookies and the demo flag.
const jar = new Map<string, string>();
vi.mock("next/headers", () => ({ cookies: async () => ({ get: (name: string) => (jar.has(name) ? { name, value: jar.get(name) } : undefined) }) }));
vi.mock("next/navigation", () => ({ useRouter: () => ({ refresh: () => {} }) }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: ReactNode }) => createElement("a", { href }, children) }));
vi.mock("../lib/auth/demo-mode", () => ({ isDemoMode: () => true }));

const { DemoWelcome } = await import("../components/demo/demo-welcome");
const { DEMO_WELCOME_COOKIE, DISMISS_WELCOME_COOKIE } = await import("../components/demo/welcome-cookie");

async function render(): Promise<string> {
  const tree = (await DemoWelcome()) as ReactElement | null;
  return tree ? renderToStaticMarkup(tree) : "";
}

describe("the demo welcome panel", () => {
  beforeEach(() => jar.clear());

  it("shows until dismissed; the dismissal cookie keeps it gone on every page for a year", async () => {
    expect(await render()).toContain('data-testid="demo-welcome"');
    // What the Dismiss button writes, as the browser stores it and sends it with every later request.
    const [pair, ...attributes] = DISMISS_WELCOME_COOKIE.split("; ");
    const [name, value] = pair!.split("=");
    expect(name).toBe(DEMO_WELCOME_COOKIE);
    expect(attributes).toContain("path=/");
    expect(Number(attributes.find((a) => a.startsWith("max-age="))!.split("=")[1])).toBeGreaterThanOrEqual(365 * 24 * 3600);
    jar.set(name!, value!);
    expect(await render()).toBe("");
    jar.set(name!, "something else");
    expect(await render()).toContain("Welcome to the Switchyard demo");
  });
});
