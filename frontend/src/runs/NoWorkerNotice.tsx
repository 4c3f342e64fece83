import type { WorkerState } from "./types";
import { noWorkerFor } from "./useWorkers";

interface Props {
  device: "cpu" | "gpu";
  workers: WorkerState | null;
  /** Offered when a worker of the other device is connected. */
  onUseOther?: () => void;
  otherLabel?: string;
}

/** Says that no worker consumes this device's queue (the run would wait silently), and offers the other. */
export function NoWorkerNotice({ device, workers, onUseOther, otherLabel }: Props) {
  if (!noWorkerFor(workers, device)) return null;
  const other = device === "gpu" ? "cpu" : "gpu";
  const otherUp = !noWorkerFor(workers, other);
  return (
    <p className="notice-warn" role="status" data-testid="no-worker">
      No {device.toUpperCase()} worker is connected: a run sent there waits in the queue until one starts
      {otherUp ? `. A ${other.toUpperCase()} worker is connected.` : ", and no other worker is connected either."}
      {otherUp && onUseOther && (
        <>
          {" "}
          <button type="button" onClick={onUseOther}>
            {otherLabel ?? `Use the ${other.toUpperCase()} worker`}
          </button>
        </>
      )}
    </p>
  );
}
