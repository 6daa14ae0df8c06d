import Link from "next/link";
import { notFound } from "next/navigation";
import { YamlEditor } from "@/components/factor-lists/yaml-editor";
import { getActiveFactorList } from "@/lib/console/factor-lists/get-active-factor-list";
import { can, getViewer } from "@/lib/console/get-viewer";
import { getVersionForEdit } from "@/lib/console/factor-lists/get-version-detail";
import type { TFactorList } from "@/router-core/index";

export const dynamic = "force-dynamic";

export default async function EditFactorListPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const version = await getVersionForEdit(id);
  if (!version) notFound();
  const [viewer, active] = await Promise.all([getViewer(), getActiveFactorList(version.operationKey)]);
  const editable = ["draft", "in_review", "rejected"].includes(version.status);
  if (!can(viewer, "factor_list.edit") || !editable) {
    return (
      <p className="panel p-3 text-sm">
        {editable
          ? "Editing needs the policy author role."
          : `Version ${version.version} is ${version.status}: only drafts, versions in review and rejected ones can be edited.`}{" "}
        <Link href={`/factor-lists/${version.id}`} style={{ color: "var(--accent)" }}>
          Back to the version
        </Link>
      </p>
    );
  }
  return (
    <YamlEditor
      mode="edit"
      versionId={version.id}
      initialYaml={version.yaml}
      initialNote={version.changeNote}
      active={active && active.id !== version.id ? { version: active.version, document: active.document as TFactorList } : null}
    />
  );
}
