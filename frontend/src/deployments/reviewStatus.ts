import type { ReviewStatus } from "./types";

/** The review statuses, in the order the filter and the buttons offer them, with their labels. */
export const REVIEW_STATUSES: { value: ReviewStatus; label: string }[] = [
  { value: "unreviewed", label: "unreviewed" },
  { value: "ok", label: "ok" },
  { value: "wrong", label: "wrong" },
  { value: "escalated", label: "escalated" },
];
