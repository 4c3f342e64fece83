import { RunProgress } from "../runs/RunProgress";
import { useRunStream } from "../runs/useRunStream";

interface Props {
  generation: number;
  run: number;
}

/** A challenger training now, live on the deployment page: its run's own event stream (the one the run
 * page reads), its progress bars and the evolution phase it is in. */
export function ChallengerProgress({ generation, run }: Props) {
  const { stream, status } = useRunStream(run);
  const phase = stream.phases.length
    ? stream.phases[stream.phases.length - 1].to
    : null;
  return (
    <div
      data-testid="challenger-progress"
      aria-label={`Generation ${generation} training`}
    >
      <p className="small">
        Generation {generation} is training (
        <a href={`/runs/${run}/`}>run {run}</a>)
        {phase && (
          <>
            {" "}
            · evolution phase <b>{phase}</b>
          </>
        )}
        {status !== "live" && <span className="muted"> · {status}</span>}
      </p>
      <RunProgress stages={stream.stages} live />
    </div>
  );
}
