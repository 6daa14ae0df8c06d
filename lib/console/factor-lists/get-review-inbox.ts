import "server-only";
import { cache } from "react";
import { getPrisma } from "@/lib/db";
import { listReviewInbox } from "@/lib/controlplane";
import type { TViewer } from "../get-viewer";

/**
 * What waits for the signed-in person's review, for the inbox page and the nav badge. Cached per
 * request: the layout's badge and the inbox page ask once between them. Nothing for a signed-out
 * viewer or one whose roles review nothing.
 */
export const getReviewInbox = cache(async (viewer: TViewer) => {
  if (!viewer) return { items: [], truncated: false };
  return listReviewInbox(getPrisma(), viewer.id, viewer.permissions);
});
