import { useCallback, useEffect, useState } from "react";
import { feedbackApi } from "./feedbackApi";
import type { Item } from "./types";

const answered = (item: Item) => Boolean(item.my_rating || item.my_judgement);

/** The items of `queue` assigned to me, which one to show next, and a reload after each answer. */
export function useMyItems(queue: number | null) {
  const [items, setItems] = useState<Item[]>([]);
  const [skipped, setSkipped] = useState<number[]>([]);
  const [error, setError] = useState("");

  const reload = useCallback(async () => {
    if (queue === null) return;
    try {
      setItems((await feedbackApi.myItems(queue)).results);
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
  const current = pending.find((item) => !skipped.includes(item.id)) ?? pending[0] ?? null;
  const skip = (id: number) => setSkipped((old) => [...old.filter((x) => x !== id), id]);
  return { items, current, done: items.length - pending.length, error, reload, skip };
}
