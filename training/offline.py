"""Offline pre-training from logged episodes (docs/design.md#sim-to-real: learn from rule-system or human logs first).

A logged episode is one JSONL line::

    {"episode": 0, "steps": [{"observations": {agent: obs}, "state": ..., "actions": {agent: int},
                             "rewards": {agent: float}}, ...], "info": {...}}

Observations and states are whatever the environment produced, made JSON-able (arrays become lists):
the trainer's `Featurizer` reads them back the same way. `log_episodes` writes such a file from any joint
policy (e.g. the rule-scripted customer-service team); `pretrain` fits a `MappoTrainer`'s actors to the
logged actions (behaviour cloning) and its critic to the logged discounted returns, so online PPO starts
from the logged behaviour instead of from scratch. Validation on a held-out split and best-checkpoint
keeping happen in `MappoTrainer.train` (`eval_every`, `checkpoint_dir/best`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from training.events import EventStream, stage


class OfflineDataError(ValueError):
    """A logged-episode file that cannot be used; the message names the file and line."""


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.integer, np.floating, np.bool_)):
        return x.item()
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def log_episodes(
    env: Any,
    policy: Callable[[Mapping[str, Any]], Mapping[str, int]],
    episodes: int,
    path: str | Path,
    seed: int = 0,
    options: Callable[[int], Mapping[str, Any] | None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Run `policy` for `episodes` episodes and write them as JSONL to `path`; `progress(k)` after the
    k-th episode."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for k in range(episodes):
            obs, _ = env.reset(seed=seed + k, options=dict(options(k) or {}) if options else None)
            steps, info = [], {}
            while env.agents:
                state = env.state()
                actions = {a: int(v) for a, v in policy(obs).items()}
                next_obs, rewards, _, _, infos = env.step(actions)
                steps.append(
                    {
                        "observations": _jsonable(obs),
                        "state": _jsonable(state),
                        "actions": actions,
                        "rewards": {a: float(r) for a, r in rewards.items()},
                    }
                )
                obs, info = next_obs, next(iter(infos.values()), info)
            f.write(json.dumps({"episode": k, "steps": steps, "info": _jsonable(info)}) + "\n")
            if progress is not None:
                progress(k + 1)
    return path


def load_episodes(path: str | Path) -> list[dict[str, Any]]:
    """Read a logged-episode JSONL file, checking each line's shape."""
    path = Path(path)
    if not path.is_file():
        raise OfflineDataError(f"logged-episode file {str(path)!r} does not exist")
    episodes = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise OfflineDataError(f"{where}: not valid JSON ({exc.msg})") from None
        steps = row.get("steps") if isinstance(row, dict) else None
        if not isinstance(steps, list) or not steps:
            raise OfflineDataError(f'{where}: expected {{"steps": [...]}} with at least one step')
        for i, step in enumerate(steps):
            if not isinstance(step, dict) or not {"observations", "actions", "rewards", "state"} <= set(step):
                raise OfflineDataError(f"{where}: step {i} needs observations, state, actions and rewards")
        episodes.append(row)
    if not episodes:
        raise OfflineDataError(f"logged-episode file {str(path)!r} holds no episodes")
    return episodes


def pretrain(
    trainer: Any,
    episodes: Sequence[Mapping[str, Any]],
    epochs: int = 5,
    batch_size: int = 256,
    lr: float | None = None,
    events: EventStream | None = None,
    seed: int = 0,
) -> dict[str, float]:
    """Behaviour cloning of the logged actions (actor) and regression on logged returns (critic).

    Returns the final imitation accuracy (share of logged actions the greedy actors reproduce) and losses.
    """
    agents = trainer.agents
    obs_rows, state_rows, present_rows, valid_rows, action_rows, return_rows = [], [], [], [], [], []
    with stage(events, "cloning_data", "Reading the logged episodes", len(episodes), "episodes") as reading:
        for ep in episodes:
            rewards = [[float(s["rewards"].get(a, 0.0)) for a in agents] for s in ep["steps"]]
            ret = np.zeros(len(agents))
            returns = []
            for r in reversed(rewards):
                ret = np.asarray(r) + trainer.cfg.gamma * ret
                returns.append(ret.copy())
            returns.reverse()
            for step, g in zip(ep["steps"], returns, strict=True):
                obs = step["observations"]
                unknown = set(step["actions"]) - set(agents)
                if unknown:
                    raise OfflineDataError(
                        f"logged actions for unknown agent(s) {sorted(unknown)}; team: {agents}"
                    )
                obs_rows.append(trainer.featurize([obs.get(a) for a in agents], trainer.obs_dim))
                state_rows.append(trainer.featurize_state(step["state"]))
                present_rows.append(torch.tensor([a in step["actions"] for a in agents]))
                valid_rows.append(trainer.valid_actions(obs))
                action_rows.append(torch.tensor([int(step["actions"].get(a, 0)) for a in agents]))
                return_rows.append(torch.as_tensor(g, dtype=torch.float32))
            reading.advance()
    obs, state = torch.stack(obs_rows), torch.stack(state_rows)
    present, valid = torch.stack(present_rows), torch.stack(valid_rows)
    actions, returns = torch.stack(action_rows), torch.stack(return_rows)
    if (actions >= torch.tensor(trainer.n_actions)).any() or (actions < 0).any():
        raise OfflineDataError("logged actions fall outside the agents' action spaces")
    if trainer.value_norm is not None:
        trainer.value_norm.update(returns, present)
    params = list(trainer.actor.parameters()) + list(trainer.critic.parameters())
    optimizer = torch.optim.Adam(params, lr=lr or trainer.cfg.lr)
    gen = torch.Generator().manual_seed(seed)
    n = obs.shape[0]
    stats = {}
    with stage(events, "cloning", "Cloning the logged actions", epochs, "epochs") as cloning:
        for epoch in range(epochs):
            perm = torch.randperm(n, generator=gen)
            bc_losses, v_losses = [], []
            for idx in perm.split(batch_size):
                logits, _ = trainer.actor(obs[idx], None, 0.0, present[idx], valid[idx])
                logp = torch.log_softmax(logits, -1).gather(-1, actions[idx].unsqueeze(-1)).squeeze(-1)
                m = present[idx].float()
                bc = -(logp * m).sum() / m.sum().clamp(min=1)
                v = trainer.critic(state[idx], obs[idx])
                target = (
                    trainer.value_norm.normalize(returns[idx])
                    if trainer.value_norm is not None
                    else returns[idx]
                )
                vl = (((v - target) ** 2) * m).sum() / m.sum().clamp(min=1)
                optimizer.zero_grad()
                (bc + trainer.cfg.value_coef * vl).backward()
                torch.nn.utils.clip_grad_norm_(params, trainer.cfg.grad_clip)
                optimizer.step()
                bc_losses.append(float(bc.detach()))
                v_losses.append(float(vl.detach()))
            with torch.no_grad():
                logits, _ = trainer.actor(obs, None, 0.0, present, valid)
                acc = float(((logits.argmax(-1) == actions) & present).sum() / present.sum())
            stats = {
                "epoch": epoch + 1,
                "bc_loss": float(np.mean(bc_losses)),
                "value_loss": float(np.mean(v_losses)),
                "imitation_accuracy": acc,
                "samples": int(present.sum()),
            }
            if events is not None:
                events.emit(
                    "log",
                    message=f"offline pre-training epoch {epoch + 1}: imitation {acc:.3f}",
                    offline=stats,
                )
            cloning.advance()
    return stats


VECTOR_DROPOUT = 0.25
"""Share of clauses whose sentence vector a keyword reader's pre-training hides each epoch (`pretrain_reader`)."""


def hide_vectors(clauses: torch.Tensor, width: int, share: float) -> torch.Tensor:
    """``clauses`` [M, D] with the first ``width`` columns (the sentence vector) zeroed in a random ``share``
    of the rows; the columns after them (the keyword evidence) are left as they are."""
    keep = (torch.rand(len(clauses), 1) >= share).to(clauses.dtype)
    return torch.cat([clauses[:, :width] * keep, clauses[:, width:]], dim=1)


def pretrain_reader(
    trainer: Any,
    texts: Sequence[str],
    labels: torch.Tensor,
    epochs: int = 300,
    lr: float = 3e-3,
    weight_decay: float = 1e-4,
    seed: int = 0,
    events: EventStream | None = None,
) -> dict[str, float]:
    """Supervised pre-training of the actors' clause readers on labelled texts (multi-label, max-pooled).

    `labels` [len(texts), reader_outputs] multi-hot (e.g. a training ticket's intents). One reader is fitted
    with full-batch Adam on binary cross-entropy, then copied to every agent, so all arms that share this
    step start from the same reading. Returns the final loss and the exact-match share on these texts.

    When the clauses carry keyword evidence beside their sentence vectors (reader "clause_keywords"), every
    epoch hides the sentence vector of a random `VECTOR_DROPOUT` share of the clauses (dropout of the vector
    as a whole, never of the keywords): a regulariser against fitting the training phrasings' vectors too
    closely, measured on phrasings training never saw (docs/experiments/2026-12-04-keyword-reader.md).

    A trainer whose config fixes its readers (`MappoConfig.reader_fixed`, the spec path whenever it
    pre-trains them) gets them back without gradients: cloning and PPO then train the actors to act on
    this reading instead of refitting it to the training phrasings.
    """
    reader = trainer.actor.reader
    if reader is None:
        raise ValueError("the trainer's observations have no clause block (Featurizer(clause_slots=K))")
    if labels.shape != (len(texts), reader.l2.weight.shape[-1]):
        raise ValueError(
            f"labels must be [{len(texts)}, {reader.l2.weight.shape[-1]}], got {list(labels.shape)}"
        )
    distinct = len(set(texts))
    with stage(events, "reader_texts", "Reading the labelled texts", distinct, "texts") as reading:
        blocks = trainer.featurize.text(list(texts), progress=reading.advance_to)  # [T, K·D + K]
    k, d, w = reader.slots, reader.dim, reader.whole_dim
    wholes, blocks = blocks[:, :w], blocks[:, w:]  # a whole-ticket vector first when the reader has one
    mask = blocks[:, k * d :] > 0.5
    clauses = blocks[:, : k * d].reshape(-1, k, d)[mask]  # only real clauses: [M, D]
    segments = torch.arange(len(texts)).unsqueeze(1).expand(-1, k)[mask]
    vector_width = d - int(getattr(trainer.featurize, "evidence_dim", 0))
    dropout = VECTOR_DROPOUT if vector_width < d else 0.0
    torch.manual_seed(seed)
    params = [reader.l1.weight, reader.l1.bias, reader.l2.weight, reader.l2.bias]
    head = reader.whole is not None and not reader.plain  # a plain classifier's head is fitted apart
    if head:
        params += [reader.whole.weight, reader.whole.bias]
    reader.requires_grad_(True)  # a fixed reader (`MappoConfig.reader_fixed`) is fitted here and only here
    optimizer = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    y = labels.float()

    def pooled(hide: float = 0.0) -> torch.Tensor:  # agent 0's reader, max over each text's clauses
        x = hide_vectors(clauses, vector_width, hide) if hide else clauses
        h = torch.relu(x @ reader.l1.weight[0] + reader.l1.bias[0])
        per_clause = h @ reader.l2.weight[0] + reader.l2.bias[0]
        out = torch.full(y.shape, -1e4)
        out = out.scatter_reduce(0, segments.unsqueeze(1).expand_as(per_clause), per_clause, "amax")
        if head:  # the whole ticket's linear head adds its logits
            out = out + wholes @ reader.whole.weight[0] + reader.whole.bias[0]
        return out

    loss = torch.zeros(())
    with stage(events, "reader_fit", "Fitting the clause readers", epochs, "epochs") as fitting:
        for _ in range(epochs):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(pooled(dropout), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            fitting.advance()
    report = {"reader_loss": float(loss.detach()), "texts": len(texts)}
    if reader.plain:  # averaged with a plain classifier on the whole ticket (`training.evidence`)
        from training.evidence import fit_plain_head

        report |= fit_plain_head(reader, wholes, y)
    reader.requires_grad_(not trainer.cfg.reader_fixed)
    with torch.no_grad():
        for p in params:
            p[1:] = p[0]  # every agent starts from the same reader
        scores = torch.sigmoid(pooled())
        if reader.plain:
            scores = 0.5 * (scores + torch.sigmoid(wholes @ reader.whole.weight[0] + reader.whole.bias[0]))
        report["reader_exact_match"] = float(((scores > 0.5) == y.bool()).all(1).float().mean())
    return report


# ---- a routing team's warm start (shared by bench/workflows.py and `training.mappo.run_spec`) ------------
def intent_labels(tickets: Sequence[Any], intents: Sequence[str] | None = None) -> torch.Tensor:
    """Multi-hot intents [len(tickets), len(intents)] (labelled tickets, for the clause readers'
    pre-training); ``intents``: the catalogue's names in order (None: the default routing environment's)."""
    from agents.envs.routing import rows_intents

    names = rows_intents() if intents is None else tuple(intents)
    return torch.tensor([[i in t.intents for i in names] for t in tickets], dtype=torch.float32)


def _catalogue_names(env: Any) -> tuple[str, ...] | None:
    """The intents of a routing environment's catalogue, in order (None: not a routing environment)."""
    catalogue = getattr(getattr(env, "unwrapped", env), "catalogue", None)
    return None if catalogue is None else tuple(catalogue.names)


def log_expert_episodes(
    env: Any,
    tickets: Sequence[Any],
    episodes: int,
    path: str | Path,
    seed: int,
    events: EventStream | None = None,
) -> list:
    """Episodes of the scripted team reading the labels of `tickets` (the logs to clone), logged on `env`.

    The expert is privileged, like the critic's state: every one of its agents reads the whole ticket, so
    a draft-only supervisor's logged actions approve as soon as the answer is complete (the logs still
    record each agent's own observation).
    """
    from agents.envs.routing import environment_interface

    # the drawn team's owners
    expert = environment_interface(env).expert_team(tickets, getattr(env.unwrapped, "roster", None))

    def act(observations: Mapping[str, Any]) -> dict[str, int]:
        ticket_id, owners = env.unwrapped.ticket.id, env.unwrapped.roster.owners  # this episode's deal
        return {
            agent: expert.act_on_ticket(agent, obs, ticket_id, owners) for agent, obs in observations.items()
        }

    with stage(events, "expert_episodes", "Playing the expert episodes", episodes, "episodes") as playing:
        return load_episodes(log_episodes(env, act, episodes, path, seed=seed, progress=playing.advance_to))


def warm_start(
    trainer: Any,
    tickets: Sequence[Any],
    logged: Sequence[Mapping[str, Any]],
    reader_epochs: int,
    clone_epochs: int,
    seed: int = 0,
    reader_state: Mapping[str, torch.Tensor] | None = None,
    events: EventStream | None = None,
) -> tuple[dict[str, Any], dict[str, torch.Tensor] | None]:
    """Supervised start before PPO: clause readers on the tickets' intents, then cloning of `logged`.

    With `reader_state` the readers are loaded instead of trained (arms that share one reading). Returns
    the report and the readers' weights (None for a team without clause readers).
    """
    report: dict[str, Any] = {}
    reader = trainer.actor.reader
    if reader is not None:
        if reader_state is None:
            labels = intent_labels(tickets, _catalogue_names(trainer.env))
            texts = [t.text for t in tickets]
            report["reader"] = pretrain_reader(
                trainer, texts, labels, epochs=reader_epochs, seed=seed, events=events
            )
        else:
            reader.load_state_dict(reader_state)
        reader_state = {k: v.clone() for k, v in reader.state_dict().items()}
    if logged:
        report["cloning"] = pretrain(
            trainer, logged, epochs=clone_epochs, lr=3e-3, batch_size=128, seed=seed, events=events
        )
    return report, reader_state


def warm_start_from_spec(
    trainer: Any, team: Any, log_dir: str | Path, events: EventStream | None = None
) -> dict:
    """The spec's warm start (`environment.params`: `reader`, `warm_start_episodes`) on a fresh trainer.

    The labelled tickets are the training environment's own; nothing happens for a spec that asks for
    neither clause readers nor logged episodes.
    """
    from agents.envs import make_env, team_kwargs
    from agents.envs.routing import start_options

    t, start = team.training, start_options(team.environment)
    if trainer.actor.reader is None and not start.warm_start_episodes:
        return {}

    def env() -> Any:
        name = team.environment.name
        return make_env(name, dict(team.environment.params), **team_kwargs(name, team.agents, team.edges))

    tickets = getattr(trainer.env, "tickets", None)
    if tickets is None:
        raise ValueError(
            f"the warm start reads labelled tickets; environment {team.environment.name!r} has none"
        )
    def logged(tickets: Sequence[Any]) -> list:
        if not start.warm_start_episodes:
            return []
        path = Path(log_dir) / f"expert_s{t.seed}_n{start.warm_start_episodes}.jsonl"
        return log_expert_episodes(env(), tickets, start.warm_start_episodes, path, seed=t.seed, events=events)

    epochs = start.reader_epochs, start.warm_start_epochs
    if start.plain_evidence:  # the readers first: the expert then answers what their evidence says
        from training.evidence import evidence_tickets

        report, read = warm_start(trainer, tickets, [], *epochs, seed=t.seed, events=events)
        names = _catalogue_names(trainer.env) or ()
        said = evidence_tickets(trainer.actor, trainer.featurize, tickets, names)
        report["evidence_relabelled"] = sum(a.intents != b.intents for a, b in zip(said, tickets, strict=True))
        report |= warm_start(trainer, tickets, logged(said), *epochs, t.seed, read, events)[0]
    else:
        report, _ = warm_start(trainer, tickets, logged(tickets), *epochs, seed=t.seed, events=events)
    if events is not None:
        events.emit("log", message=f"warm start: {report}")
    return report
