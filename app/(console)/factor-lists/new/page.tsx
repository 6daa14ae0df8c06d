import Link from "next/link";
import { YamlEditor } from "@/components/factor-lists/yaml-editor";
import { getActiveFactorList } from "@/lib/console/factor-lists/get-active-factor-list";
import { can, getViewer } from "@/lib/console/get-viewer";
import type { TFactorList } from "@/router-core/index";

export const dynamic = "force-dynamic";

/** A new draft starts from the operation's active version, as its author wrote it. */
export default async function NewFactorListPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const operation = typeof sp.operation === "string" ? sp.operation : "";
  const [viewer, active] = await Promise.all([getViewer(), operation ? getActiveFactorList(operation) : null]);
  if (!can(viewer, "factor_list.create")) {
    return (
      <p className="panel p-3 text-sm">
        Creating a draft needs the policy author role.{" "}
        <Link href={`/login?next=/factor-lists/new?operation=${encodeURIComponent(operation)}`} style={{ color: "var(--accent)" }}>
          Sign in
        </Link>{" "}
        as one, or go back to the <Link href="/factor-lists">factor lists</Link>.
      </p>
    );
  }
  return (
    <YamlEditor
      mode="create"
      initialYaml={active?.yaml ?? `operation: ${operation || "OPERATION_KEY"}\n`}
      initialNote=""
      active={active ? { version: active.version, document: active.document as TFactorList } : null}
    />
  );
}
