import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { neighbourId } from "./navigation";
import { feedbackQueries } from "./queries";
import type { Item } from "./types";

const answered = (item: Item) => Boolean(item.my_rating || item.my_judgement || item.my_intents);

/** The items of `queue` assigned to me, which one to show (the next unanswered one unless the annotator
 * moved with next / previous), and a reload after each answer (which goes on to the next unanswered). */
export function useMyItems(queue: number | null) {
  const { data, error, refetch } = useQuery({ ...feedbackQueries.myItems(queue ?? 0), enabled: queue !== null });
  const items = data?.results ?? [];
  const [skipped, setSkipped] = useState<number[]>([]);
  const [cursor, setCursor] = useState<number | null>(null);
  // Another queue starts over: nothing skipped, the next unanswered item.
  useEffect(() => {
    setSkipped([]);
    setCursor(null);
  }, [queue]);
  const reload = async () => {
    if (queue !== null && (await refetch()).isSuccess) setCursor(null);
  };

  const pending = items.filter((item) => !answered(item));
  // Skipped items come back once everything else is done.
  const next = pending.find((item) => !skipped.includes(item.id)) ?? pending[0] ?? null;
  const current = items.find((item) => item.id === cursor) ?? next;
  const skip = (id: number) => {
    setSkipped((old) => [...old.filter((x) => x !== id), id]);
    setCursor(null);
  };
  const ids = items.map((item) => item.id);
  const move = (delta: 1 | -1) => setCursor(neighbourId(ids, current?.id ?? null, delta) ?? (delta === 1 ? null : cursor));
  return { items, current, done: items.length - pending.length, error: error?.message ?? "", reload, skip, move };
}
