import { EpisodeView } from "./EpisodeView";
import { IntentForm } from "./IntentForm";
import { PairwiseForm } from "./PairwiseForm";
import { RatingForm } from "./RatingForm";
import type { Choice, Item, Queue } from "./types";

interface Props {
  queue: Queue;
  item: Item;
  onRate: (value: number, tags: string[], comment: string) => Promise<void>;
  onJudge: (choice: Choice, comment: string) => Promise<void>;
  /** Intents queues: store the row's intents ([]: none of these); skip it for now. */
  onLabel: (intents: string[]) => Promise<void>;
  /** Skip the item for now: each kind shows one Skip control (the rating and intents forms their own, key S). */
  onSkip: () => void;
}

/** The item being annotated: one episode or step with the rating form, or two episodes side by side. */
export function AnnotationItem({ queue, item, onRate, onJudge, onLabel, onSkip }: Props) {
  if (item.kind === "row") {
    return (
      <section className="card" data-testid="annotation-item" data-item={item.id} data-hotkeys>
        <p className="hint">Which intents does this ticket ask for?</p>
        <blockquote className="fb-row-text" data-testid="row-text">
          {item.snapshot.task}
        </blockquote>
        <IntentForm
          key={item.id}
          intents={item.snapshot.catalogue ?? []}
          previous={item.my_intents?.intents}
          onSubmit={onLabel}
          onSkip={onSkip}
        />
      </section>
    );
  }
  if (item.kind === "pair" && item.snapshot_b) {
    return (
      <section className="card" data-testid="annotation-item" data-item={item.id} data-hotkeys>
        <div className="fb-pair">
          <EpisodeView snapshot={item.snapshot} label="A" />
          <EpisodeView snapshot={item.snapshot_b} label="B" />
        </div>
        <PairwiseForm key={item.id} previous={item.my_judgement} onSubmit={onJudge} />
        <button type="button" className="link" onClick={onSkip}>
          Skip for now
        </button>
      </section>
    );
  }
  return (
    <section className="card" data-testid="annotation-item" data-item={item.id} data-hotkeys>
      <p className="hint">{item.kind === "step" ? "Rate this single decision" : "Rate the whole episode"}</p>
      <EpisodeView snapshot={item.snapshot} />
      <RatingForm key={item.id} tags={queue.tags} previous={item.my_rating} onSubmit={onRate} onSkip={onSkip} />
    </section>
  );
}
