"""The training loop of a `ReinforceCommTrainer`: sample → update → metrics → evaluation → checkpoint.

`TrainingLoop.run` trains until the episode budget is played, reporting through an `EventStream`
("started", "metrics", "attention", "checkpoint", "finished"); `evaluate` plays greedy episodes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.comm import attention_entropy
from training import distributed
from training.events import EventStream
from training.reinforce_comm.update import UpdateStats
from training.trainer import TrainResult


class TrainingLoop:
    """The run loop and evaluation (a part of `ReinforceCommTrainer`)."""

    def run(
        self,
        events: EventStream,
        should_stop: Callable[[], bool] = lambda: False,
        checkpoint_root: Path | None = None,
        episodes: int | None = None,
        resumed_from: int | None = None,
        progress: Callable[[UpdateStats, dict], None] | None = None,
    ) -> TrainResult:
        """Train until `episodes` (default: the spec's) have been played, reporting through `events`.

        `should_stop()` is read before every update; when it returns True the run checkpoints and
        ends with status "cancelled". `progress(stats, info)` is called after every update (the CLI's
        progress bar).
        """
        cfg = self.config
        total = cfg.episodes if episodes is None else episodes
        events.emit(
            "started",
            resumed_from=resumed_from,
            algorithm="reinforce_comm",
            episodes=total,
            agents=self.agents,
            acting=self.acting,
            backbone=self.backbone.describe(),
            routing=cfg.routing,
        )
        with events.stage("reader_texts", "Embedding the environment's texts", 1, "tables") as reading:
            self.embedding_table(self.env)  # the backbone reads every text an agent can show, once
            reading.advance()
        if self.link is not None:
            self.link.events = events
        last_eval = self.episode
        last_ckpt = self.episode
        last_cycle = self.episode
        window: list[UpdateStats] = []
        eval_metrics: dict[str, Any] = {}
        if self.episode == 0 and cfg.eval_every:
            # A fresh run reports where it starts (uniform attention, chance success): the run page's
            # replay then shows the graph going from uniform to learned. Not counted in the wall time.
            eval_metrics = self._evaluate_and_report(events)
        start = time.perf_counter() - self.seconds
        status = "succeeded"
        self._window_clock = time.perf_counter()
        with events.stage("training", "Training", total, "episodes", start=self.episode) as training:
            while self.episode < total:
                if self._should_stop(should_stop):
                    status = "cancelled"
                    break
                embeddings, secrets = self.sample(cfg.batch_size)
                stats = self.update(embeddings, secrets)
                self.seconds = time.perf_counter() - start
                window.append(stats)
                if self.update_index % cfg.metrics_every == 0:
                    events.emit("metrics", **self._window_metrics(window))
                    window = []
                if cfg.eval_every and self.episode - last_eval >= cfg.eval_every:
                    last_eval = self.episode
                    eval_metrics = self._evaluate_and_report(events)
                if self.update_index % cfg.attention_every == 0 and self.group.is_main:
                    self._emit_attention(events, embeddings)
                cycle = self.spec.evolution.cycle_episodes
                if cycle and self.episode - last_cycle >= cycle:
                    last_cycle = self.episode
                    score = eval_metrics.get("success", stats.success)
                    self.evolution.events = events
                    self.evolution.end_cycle({a: score for a in self.agents})
                if (
                    checkpoint_root is not None
                    and cfg.checkpoint_every
                    and self.episode - last_ckpt >= cfg.checkpoint_every
                ):
                    last_ckpt = self.episode
                    self._checkpoint(events, checkpoint_root, eval_metrics)
                if progress is not None:
                    progress(stats, {"episode": self.episode, "total": total, "seconds": self.seconds})
                training.advance_to(self.episode)
        if window:
            events.emit("metrics", **self._window_metrics(window))
        final = self._evaluate_and_report(events) if status == "succeeded" else eval_metrics
        path = None
        if checkpoint_root is not None:
            path = str(self._checkpoint(events, checkpoint_root, final))
        metrics = {k: v for k, v in final.items() if isinstance(v, (int, float))}
        events.emit("finished", status=status, metrics=metrics, episode=self.episode, seconds=self.seconds)
        return TrainResult(status, self.episode, self.update_index, self.seconds, metrics, path)

    def _should_stop(self, should_stop: Callable[[], bool]) -> bool:
        """One process: `should_stop()`. A group: the request rank 0 read before the previous update,
        agreed on in that update's all-reduce, so that every rank stops after the same update."""
        if not self.group.active:
            return should_stop()
        if self.update_index == 0:  # before the first update: no all-reduce carried it yet
            return distributed.any_true(self.group, should_stop())
        self._stop_requested = self._stop_requested or should_stop()
        return self._stop_agreed

    def _window_metrics(self, window: list[UpdateStats]) -> dict[str, Any]:
        averaged = {k: float(np.mean([getattr(s, k) for s in window])) for k in asdict(window[0])}
        return {
            "step": self.update_index,
            "episode": self.episode,
            "phase": self.evolution.phase,
            "seconds": self.seconds,
            **averaged,
            **(self.link.metrics() if self.link is not None else {}),
            **self._rank_throughput(len(window)),
        }

    def _rank_throughput(self, updates: int) -> dict[str, float]:
        """Data-parallel runs: episodes per second of each rank since the last report, and their sum."""
        if not self.group.active:
            return {}
        now = time.perf_counter()
        rate = updates * self.config.batch_size / max(now - self._window_clock, 1e-9)
        self._window_clock = now
        rates = distributed.gather_floats(self.group, rate)
        per_rank = {f"rank{r}_episodes_per_second": x for r, x in enumerate(rates)}
        return {"episodes_per_second": sum(rates), **per_rank}

    @torch.no_grad()
    def evaluate(self, episodes: int = 1000, env: Any = None, seed: int | None = None) -> dict[str, Any]:
        """Greedy play on fresh episodes with α (no exploration, no sampling): success, messages,
        attention entropy, attention share on distractors and the mean attention matrix."""
        cfg, policy = self.config, self.policy
        env = env if env is not None else self.env
        rng = np.random.default_rng(self.config.seed + 10_007 if seed is None else seed)
        generator = torch.Generator(device=self.device).manual_seed(int(rng.integers(2**31)))
        totals = {"success": 0.0, "messages": 0.0, "entropy": 0.0, "distractor": 0.0}
        matrix = torch.zeros(len(self.agents), len(self.agents))
        done = 0
        was_training = policy.training
        policy.eval()
        while done < episodes:
            size = min(256, episodes - done)
            embeddings, secrets = self.sample(size, env=env, rng=rng)
            out = policy(
                embeddings,
                routing=cfg.routing,
                threshold=cfg.delivery_threshold,
                generator=generator,
                heard=self.hear(embeddings),
            )
            actions = out.logits.argmax(-1)
            totals["success"] += float((actions == secrets.unsqueeze(-1)).float().mean(-1).sum())
            receivers = policy.receivers
            totals["messages"] += float(out.delivered[:, receivers].sum())
            entropy = attention_entropy(out.alpha[:, receivers], policy.allowed[receivers])
            totals["entropy"] += float(entropy.mean(-1).sum()) if entropy.numel() else 0.0
            share = out.weights[:, receivers][..., self._distractors.to(out.weights.device)].sum(-1)
            totals["distractor"] += float(share.mean(-1).sum()) if share.numel() else 0.0
            matrix += out.weights.sum(0).cpu()
            done += size
        policy.train(was_training)
        return {
            "success": totals["success"] / episodes,
            "messages_per_episode": totals["messages"] / episodes,
            "attention_entropy": totals["entropy"] / episodes,
            "distractor_attention": totals["distractor"] / episodes,
            "attention": (matrix / episodes).tolist(),
            "episodes": episodes,
        }

    def _evaluate_and_report(self, events: EventStream) -> dict[str, Any]:
        n, group = self.config.eval_episodes, self.group
        with events.stage("evaluation", "Evaluating on fresh episodes", n, "episodes") as playing:
            if group.active:  # each rank plays its share of the evaluation episodes; the means are averaged
                share = -(-n // group.world_size)
                result = self.evaluate(share, seed=self.config.seed + 10_007 + 7_919 * group.rank)
                result = {**distributed.mean_metrics(group, result), "episodes": share * group.world_size}
            else:
                result = self.evaluate(n)
            playing.advance_to(n)
        events.emit(
            "metrics",
            step=self.update_index,
            episode=self.episode,
            eval_success=result["success"],
            eval_messages=result["messages_per_episode"],
            eval_attention_entropy=result["attention_entropy"],
            eval_distractor_attention=result["distractor_attention"],
        )
        events.emit(
            "attention", step=self.update_index, agents=self.agents, matrix=result["attention"], mode="eval"
        )
        return result

    @torch.no_grad()
    def _emit_attention(self, events: EventStream, embeddings: torch.Tensor) -> None:
        out = self.policy(
            embeddings,
            routing=self.config.routing,
            threshold=self.config.delivery_threshold,
            heard=self.hear(embeddings),
        )
        events.emit(
            "attention", step=self.update_index, agents=self.agents, matrix=out.alpha.mean(0), mode="train"
        )

    def _checkpoint(self, events: EventStream, root: Path, metrics: Mapping[str, Any]) -> Path:
        path = self.save_checkpoint(root, events)
        scalars = {k: v for k, v in metrics.items() if isinstance(v, (int, float))}
        events.emit(
            "checkpoint", step=self.update_index, path=str(path), metrics=scalars, episode=self.episode
        )
        return path
