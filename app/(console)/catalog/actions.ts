"use server";

import { revalidatePath } from "next/cache";
import { withActionPermission } from "@/lib/auth/with-action-permission";
import { approveCatalogChange } from "@/lib/catalog/approve-catalog-change";
import { createOperation } from "@/lib/catalog/create-operation";
import { createProvider } from "@/lib/catalog/create-provider";
import { deleteCertification, deleteRegion } from "@/lib/catalog/delete-declaration";
import { catalogFormInput } from "@/lib/catalog/form-input";
import { putAdapter } from "@/lib/catalog/put-adapter";
import { putGatewayLimits } from "@/lib/catalog/put-gateway-limits";
import { putCertification } from "@/lib/catalog/put-certification";
import { putRegion } from "@/lib/catalog/put-region";
import { rejectCatalogChange } from "@/lib/catalog/reject-catalog-change";
import { ZAdapter, ZCertificationEntry, ZGatewayLimits, ZOperation, ZOperationPatch, ZProvider, ZProviderPatch, ZRegionEntry } from "@/lib/catalog/schemas";
import { updateOperation } from "@/lib/catalog/update-operation";
import { updateProvider } from "@/lib/catalog/update-provider";
import { parseInput } from "@/lib/errors/api-errors";

// Forms post FormData; each action turns it into the same zod-validated body the API takes.
const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim();
const done = <T>(value: T) => {
  revalidatePath("/catalog");
  return value;
};

export const saveProviderAction = withActionPermission("catalog.edit", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const original = text(form, "original");
  const input = catalogFormInput.provider(form);
  if (!original) return done({ status: (await createProvider(prisma, actor, parseInput(ZProvider, input))).status as string });
  const reason = text(form, "quotaReason");
  return done({
    status: (await updateProvider(prisma, actor, original, parseInput(ZProviderPatch, input), { reason, requireQuotaReason: true })).status as string,
  });
});

export const setProviderEnabledAction = withActionPermission("catalog.edit", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const r = await updateProvider(prisma, actor, text(form, "key"), { enabled: text(form, "enabled") === "1" });
  return done({ status: r.status as string });
});

export const saveOperationAction = withActionPermission("catalog.edit", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const original = text(form, "original");
  const input = catalogFormInput.operation(form);
  if (!original) return done({ status: (await createOperation(prisma, actor, parseInput(ZOperation, input))).status as string });
  const { key: _key, ...patch } = input;
  return done({ status: (await updateOperation(prisma, actor, original, parseInput(ZOperationPatch, patch))).status as string });
});

export const saveAdapterAction = withActionPermission("catalog.edit", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const r = await putAdapter(prisma, actor, text(form, "provider"), parseInput(ZAdapter, catalogFormInput.adapter(form)));
  return done({ status: r.status as string });
});

export const saveGatewayLimitsAction = withActionPermission("catalog.edit", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const r = await putGatewayLimits(prisma, actor, text(form, "operation"), parseInput(ZGatewayLimits, catalogFormInput.limits(form)));
  return done({ status: r.status as string });
});

export const approveCatalogChangeAction = withActionPermission("catalog.approve_compliance", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  await approveCatalogChange(prisma, actor, text(form, "id"), text(form, "comment"));
  return done({ status: "applied" });
});

export const rejectCatalogChangeAction = withActionPermission("catalog.approve_compliance", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  await rejectCatalogChange(prisma, actor, text(form, "id"), text(form, "comment"));
  return done({ status: "rejected" });
});

export const saveRegionAction = withActionPermission("catalog.edit", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const r = await putRegion(prisma, actor, parseInput(ZRegionEntry, catalogFormInput.region(form)));
  return done({ status: r.status as string });
});

export const saveCertificationAction = withActionPermission("catalog.edit", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const r = await putCertification(prisma, actor, parseInput(ZCertificationEntry, { name: text(form, "name"), description: text(form, "description") }));
  return done({ status: r.status as string });
});

export const deleteDeclarationAction = withActionPermission("catalog.edit", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const name = text(form, "name");
  const r = text(form, "kind") === "region" ? await deleteRegion(prisma, actor, name) : await deleteCertification(prisma, actor, name);
  return done({ status: r.status as string });
});
