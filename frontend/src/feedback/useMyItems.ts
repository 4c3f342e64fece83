import { useCallback, useEffect, useState } from "react";
import { feedbackApi } from "./feedbackApi";
import { neighbourId } from "./navigation";
import type { Item } from "./types";

const answered = (item: Item) => Boolean(item.my_rating || item.my_judgement);

/** The items of `queue` assigned to me, which one to show (the next unanswered one unless the annotator
 * moved with next / previous), and a reload after each answer (which goes on to the next unanswered). */
export function useMyItems(queue: number | null) {
  const [items, setItems] = useState<Item[]>([]);
  const [skipped, setSkipped] = useState<number[]>([]);
  const [cursor, setCursor] = useState<number | null>(null);
  const [error, setError] = useState("");

  const reload = useCallback(async () => {
    if (queue === null) return;
    try {
      setItems((await feedbackApi.myItems(queue)).results);
      setCursor(null);
      setError("");
    } catch (e) {
      setError((e as Error).message);
    }
  }, [queue]);

  useEffect(() => {
    setSkipped([]);
    void reload();
  }, [reload]);

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
  return { items, current, done: items.length - pending.length, error, reload, skip, move };
}
