/** The deployment's minimum interval between evolutions, as the Evolve button says it: the lineage's
 * `evolve_after` (when the last challenger's start plus the interval ends; null when Evolve may run now). */
import { useEffect, useState } from "react";

const two = (n: number) => String(n).padStart(2, "0");

/** "next evolution possible at 10:07" (local time, rounded up to the minute so that a click at the time
 * shown is not refused; the date too when it is not today), or null once the interval has passed. */
export function evolveWaitText(evolveAfter: string | null | undefined, now: Date): string | null {
  if (!evolveAfter) return null;
  const at = new Date(evolveAfter);
  if (Number.isNaN(at.getTime()) || at <= now) return null;
  const shown = new Date(Math.ceil(at.getTime() / 60_000) * 60_000);
  const sameDay = shown.toDateString() === now.toDateString();
  const day = sameDay ? "" : `${shown.getFullYear()}-${two(shown.getMonth() + 1)}-${two(shown.getDate())} `;
  return `next evolution possible at ${day}${two(shown.getHours())}:${two(shown.getMinutes())}`;
}

/** The time now, looked at again when `until` passes (so a disabled Evolve comes back by itself). */
export function useNowUntil(until: string | null | undefined): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    if (!until) return;
    const wait = new Date(until).getTime() - Date.now();
    if (!(wait > 0)) return;
    const timer = setTimeout(() => setNow(new Date()), Math.min(wait + 1000, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [until]);
  return now;
}
