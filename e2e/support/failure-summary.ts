import type { FullResult, Reporter, TestCase, TestError, TestResult } from "@playwright/test/reporter";

/** Lines of each failure's first error the summary keeps, and characters per line. */
const LINES = 6;
const WIDTH = 240;

const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * After the list reporter, one short block per failed test, in the order they failed: CI keeps
 * only the tail of the run's output, where the list reporter's last failures would push out the
 * first one, which is usually the cause of the others.
 */
export default class FailureSummary implements Reporter {
  private readonly failed: string[] = [];

  printsToStdio(): boolean {
    return true;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status === "passed" || result.status === "skipped" || result.status === test.expectedStatus) return;
    const where = `${test.location.file.replace(/^.*\/e2e\//, "e2e/")}:${test.location.line}`;
    this.add(`${where} › ${test.title} (${result.status}, ${Math.round(result.duration / 1000)} s)`, result.error);
  }

  /** Errors outside any test: a hook of the whole run, the global teardown. */
  onError(error: TestError): void {
    this.add("outside any test", error);
  }

  private add(heading: string, error: TestError | undefined): void {
    const lines = (error?.message ?? error?.value ?? "no error message")
      .replace(ANSI, "")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .slice(0, LINES)
      .map((l) => `    ${l.length > WIDTH ? `${l.slice(0, WIDTH)}…` : l}`);
    this.failed.push(`  ${this.failed.length + 1}. ${heading}\n${lines.join("\n")}`);
  }

  onEnd(result: FullResult): void {
    if (this.failed.length === 0) return;
    process.stdout.write(`\ne2e failures in the order they happened (run ${result.status}):\n${this.failed.join("\n")}\n`);
  }
}
