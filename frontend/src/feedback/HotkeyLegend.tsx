/** A one-line list of the keyboard shortcuts that work here: [keys, what they do]. */
export function HotkeyLegend({ entries }: { entries: [string[], string][] }) {
  return (
    <p className="fb-legend hint" data-testid="hotkey-legend" aria-label="Keyboard shortcuts">
      {entries.map(([keys, what]) => (
        <span key={what} className="fb-legend-entry">
          {keys.map((k, i) => (
            <span key={k}>
              {i > 0 && " / "}
              <kbd>{k}</kbd>
            </span>
          ))}{" "}
          {what}
        </span>
      ))}
    </p>
  );
}

export const NAVIGATION_KEYS: [string[], string][] = [
  [["n", "→"], "next item"],
  [["←"], "previous"],
];
