import { EpisodeView } from "./EpisodeView";
import { PairwiseForm } from "./PairwiseForm";
import { RatingForm } from "./RatingForm";
import type { Choice, Item, Queue } from "./types";

interface Props {
  queue: Queue;
  item: Item;
  onRate: (value: number, tags: string[], comment: string) => Promise<void>;
  onJudge: (choice: Choice, comment: string) => Promise<void>;
}

/** The item being annotated: one episode or step with the rating form, or two episodes side by side. */
export function AnnotationItem({ queue, item, onRate, onJudge }: Props) {
  if (item.kind === "pair" && item.snapshot_b) {
    return (
      <section className="card" data-testid="annotation-item" data-item={item.id} data-hotkeys>
        <div className="fb-pair">
          <EpisodeView snapshot={item.snapshot} label="A" />
          <EpisodeView snapshot={item.snapshot_b} label="B" />
        </div>
        <PairwiseForm key={item.id} previous={item.my_judgement} onSubmit={onJudge} />
      </section>
    );
  }
  return (
    <section className="card" data-testid="annotation-item" data-item={item.id} data-hotkeys>
      <p className="hint">{item.kind === "step" ? "Rate this single decision" : "Rate the whole episode"}</p>
      <EpisodeView snapshot={item.snapshot} />
      <RatingForm key={item.id} tags={queue.tags} previous={item.my_rating} onSubmit={onRate} />
    </section>
  );
}
