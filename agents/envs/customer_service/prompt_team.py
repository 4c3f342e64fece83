"""A customer-service team whose specialists are defined by what they are told, not by a slot index.

Every specialist runs the same network (`PromptScorer`) on three frozen-backbone embeddings: a clause of
the ticket, its own prompt, and an intent's description from the catalogue. The score answers "does this
clause ask for intent k, and does my prompt make k my job?"; a ticket's score is the maximum over its
clauses. The first layer is linear in the element-wise products clause⊙prompt, clause⊙intent and
prompt⊙intent plus the three cosines, so a prompt it never saw still lands near the intents it names.

`PromptTeam.fit(tickets, roster)` trains the scorer on labelled tickets: for every specialist i and every
catalogue intent k (not only those i owns) the target is "the ticket asks for k and i owns k" — so
ownership must be read from the prompt. `PromptTeam.policy(roster)` acts in `CustomerServiceEnv`: a
specialist answers its owned intents whose score passes 0.5, one per step; reviewers approve once the
draft holds everything the team found. An agent's prompt comes from its observation (``prompt``, an env
built with ``team=``) or the roster, so rewriting a prompt changes what the agent does.

`prompt_routing` is the untrained routing query: a clause goes to the specialist whose prompt embedding is
nearest (cosine) — what a new specialist does before any training. `save` / `load` keep the weights with
the roster and its prompts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.envs.customer_service.clauses import split_clauses
from agents.envs.customer_service.roster import INTENT_DESCRIPTIONS, Member, Roster
from agents.envs.customer_service.tickets import INTENTS, Ticket

SLOTS = 8  # clauses read per ticket; longer tails are joined into the last one


@dataclass
class PromptTeamConfig:
    """Scorer size and its supervised training."""

    hidden: int = 64
    epochs: int = 60
    batch_size: int = 128
    lr: float = 3e-3
    weight_decay: float = 1e-4
    threshold: float = 0.5
    seed: int = 0


class PromptScorer(nn.Module):
    """logit(clause, prompt, intent) = MLP over [c⊙p, c⊙e, p⊙e, cos(c,p), cos(c,e), cos(p,e)], computed
    without materialising every triple's input (the first layer is split per product)."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.cp, self.ce, self.pe = (
            nn.Linear(dim, hidden),
            nn.Linear(dim, hidden, bias=False),
            nn.Linear(dim, hidden, bias=False),
        )
        self.cos = nn.Linear(3, hidden, bias=False)
        self.out = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(
        self, clauses: torch.Tensor, mask: torch.Tensor, prompts: torch.Tensor, intents: torch.Tensor
    ) -> torch.Tensor:
        """clauses [B, K, D], mask [B, K], prompts [N, D], intents [M, D] → max-over-clause logits [B, N, M]."""
        c = nn.functional.normalize(clauses, dim=-1)
        p = nn.functional.normalize(prompts, dim=-1)
        e = nn.functional.normalize(intents, dim=-1)
        cp = self.cp(c[:, :, None, :] * p[None, None])  # [B, K, N, H]
        ce = self.ce(c[:, :, None, :] * e[None, None])  # [B, K, M, H]
        pe = self.pe(p[:, None, :] * e[None])  # [N, M, H]
        cos_cp = torch.einsum("bkd,nd->bkn", c, p)
        cos_ce = torch.einsum("bkd,md->bkm", c, e)
        cos_pe = p @ e.T
        w = self.cos.weight  # [H, 3]
        h = (
            cp[:, :, :, None, :]
            + ce[:, :, None, :, :]
            + pe[None, None]
            + cos_cp[..., None, None] * w[:, 0]
            + cos_ce[:, :, None, :, None] * w[:, 1]
            + cos_pe[None, None, :, :, None] * w[:, 2]
        )  # [B, K, N, M, H]
        logits = self.out(h).squeeze(-1)  # [B, K, N, M]
        logits = logits.masked_fill(~mask[:, :, None, None].bool(), -1e4)
        return logits.max(dim=1).values


class TextBank:
    """Backbone embeddings of tickets' clauses, prompts and intent descriptions, computed once per text."""

    def __init__(self, backbone: Any):
        self.backbone = backbone
        self._clauses: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}

    def clauses(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """[B, SLOTS, D] clause embeddings (zero-padded) and their [B, SLOTS] mask."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._clauses]
        if missing:
            pieces = [split_clauses(t, limit=SLOTS) for t in missing]
            with torch.no_grad():
                flat = self.backbone.encode([p for ps in pieces for p in ps]).float().cpu()
            start = 0
            for text, ps in zip(missing, pieces, strict=True):
                block, mask = torch.zeros(SLOTS, flat.shape[1]), torch.zeros(SLOTS)
                block[: len(ps)], mask[: len(ps)] = flat[start : start + len(ps)], 1.0
                start += len(ps)
                self._clauses[text] = (block, mask)
        rows = [self._clauses[t] for t in texts]
        return torch.stack([r[0] for r in rows]), torch.stack([r[1] for r in rows])

    def sentences(self, texts: Sequence[str]) -> torch.Tensor:
        """[len, D] whole-text embeddings (prompts, intent descriptions)."""
        with torch.no_grad():
            return self.backbone.encode(list(texts)).float().cpu()

    def intents(self) -> torch.Tensor:
        """[8, D] the catalogue's intent descriptions, in `INTENTS` order."""
        return self.sentences([f"{i.replace('_', ' ')}: {INTENT_DESCRIPTIONS[i]}" for i in INTENTS])


def _owned(roster: Roster) -> torch.Tensor:
    """[N specialists, 8]: 1 where the specialist owns the intent."""
    return torch.tensor([[float(i in roster.by_id[s].intents) for i in INTENTS] for s in roster.specialists])


def prompt_routing(bank: TextBank, tickets: Sequence[Ticket], roster: Roster) -> dict[str, float]:
    """The untrained routing query: each single-intent ticket goes to the specialist whose prompt is nearest
    (cosine) to one of its clauses. Returns ``accuracy`` (share routed to an owner of the intent), ``chance``
    (the share a uniformly random specialist would get right), ``tickets`` and ``by_specialist`` (per
    specialist, the share of the tickets it owns that reach it)."""
    single = [t for t in tickets if len(t.intents) == 1]
    if not single:
        return {"accuracy": 0.0, "chance": 0.0, "tickets": 0}
    clauses, mask = bank.clauses([t.text for t in single])
    prompts = nn.functional.normalize(bank.sentences([roster.prompt(s) for s in roster.specialists]), dim=-1)
    cos = torch.einsum("bkd,nd->bkn", nn.functional.normalize(clauses, dim=-1), prompts)
    cos = cos.masked_fill(~mask[..., None].bool(), -2.0).max(dim=1).values  # [B, N]
    chosen = cos.argmax(dim=1).tolist()
    owners = [[s for s in roster.specialists if t.intents[0] in roster.by_id[s].intents] for t in single]
    hits = [roster.specialists[c] in own for c, own in zip(chosen, owners, strict=True)]
    chance = float(np.mean([len(own) / len(roster.specialists) for own in owners]))
    recall = {  # per specialist: the share of the tickets it owns that reach it
        s: float(np.mean([h for h, own in zip(hits, owners, strict=True) if s in own] or [0.0]))
        for s in roster.specialists
    }
    return {
        "accuracy": sum(hits) / len(single),
        "chance": chance,
        "tickets": len(single),
        "by_specialist": recall,
    }


class PromptTeam:
    """The trained scorer plus what it needs to act: the backbone's texts and the catalogue."""

    def __init__(self, backbone: Any, config: PromptTeamConfig | None = None, roster: Roster | None = None):
        self.config = config or PromptTeamConfig()
        self.bank = TextBank(backbone)
        self.intent_vectors = self.bank.intents()
        torch.manual_seed(self.config.seed)
        self.scorer = PromptScorer(self.intent_vectors.shape[1], self.config.hidden)
        self.roster = roster
        self._scores: dict[tuple[str, tuple[str, ...]], torch.Tensor] = {}

    # -------------------------------------------------------------------------------------- training
    def fit(
        self, tickets: Sequence[Ticket], roster: Roster, log: Callable[[str], None] | None = None
    ) -> dict:
        """Train on labelled tickets for ``roster`` (targets: the ticket asks for k and the specialist owns k)."""
        cfg = self.config
        self.roster = roster
        self._scores.clear()
        clauses, mask = self.bank.clauses([t.text for t in tickets])
        labels = torch.tensor([[float(i in t.intents) for i in INTENTS] for t in tickets])
        owned = _owned(roster)
        targets = labels[:, None, :] * owned[None]  # [B, N, 8]
        prompts = self.bank.sentences([roster.prompt(s) for s in roster.specialists])
        optimiser = torch.optim.AdamW(self.scorer.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        generator = torch.Generator().manual_seed(cfg.seed)
        # positives are rare (one or two intents of eight, for one specialist of N): weigh them up
        pos_weight = torch.tensor(max(1.0, float((targets == 0).sum() / targets.sum().clamp(min=1)) ** 0.5))
        loss = torch.tensor(0.0)
        for epoch in range(cfg.epochs):
            order = torch.randperm(len(tickets), generator=generator)
            for start in range(0, len(tickets), cfg.batch_size):
                idx = order[start : start + cfg.batch_size]
                logits = self.scorer(clauses[idx], mask[idx], prompts, self.intent_vectors)
                loss = nn.functional.binary_cross_entropy_with_logits(
                    logits, targets[idx], pos_weight=pos_weight
                )
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
            if log is not None and (epoch + 1) % 20 == 0:
                log(f"epoch {epoch + 1}: loss {loss.item():.4f}")
        return {"epochs": cfg.epochs, "final_loss": loss.item(), "tickets": len(tickets)}

    # -------------------------------------------------------------------------------------- acting
    def scores(self, text: str, prompts: Sequence[str]) -> torch.Tensor:
        """[N, 8] probabilities: specialist n (told ``prompts[n]``) should answer intent k of ``text``."""
        key = (text, tuple(prompts))
        if key not in self._scores:
            clauses, mask = self.bank.clauses([text])
            with torch.no_grad():
                logits = self.scorer(clauses, mask, self.bank.sentences(list(prompts)), self.intent_vectors)
            self._scores[key] = torch.sigmoid(logits[0])
            if len(self._scores) > 50_000:
                self._scores.clear()
        return self._scores[key]

    def handler(self, text: str, roster: Roster) -> str:
        """The specialist whose prompt claims ``text`` most strongly (over the whole catalogue)."""
        probs = self.scores(text, [roster.prompt(s) for s in roster.specialists])
        return roster.specialists[int(probs.max(dim=1).values.argmax())]

    def answer(self, text: str, roster: Roster) -> dict[str, tuple[str, ...]]:
        """Per specialist, the intents it owns and will answer (at least one intent for the whole team)."""
        probs = self.scores(text, [roster.prompt(s) for s in roster.specialists]) * _owned(roster)
        chosen = {
            s: tuple(i for k, i in enumerate(INTENTS) if probs[n, k] >= self.config.threshold)
            for n, s in enumerate(roster.specialists)
        }
        if not any(chosen.values()):  # a ticket always asks something: the team's best guess
            n, k = divmod(int(probs.argmax()), len(INTENTS))
            chosen[roster.specialists[n]] = (INTENTS[k],)
        return chosen

    def policy(self, roster: Roster | None = None) -> Callable[[Mapping[str, Any]], dict[str, int]]:
        """observations → actions in a `CustomerServiceEnv` playing ``roster`` (default: the trained one).
        An observation's ``prompt`` (an env built with ``team=``) overrides the roster's."""
        base = roster or self.roster
        if base is None:
            raise ValueError("the team needs a roster: fit it first or pass one")

        def act(observations: Mapping[str, Any]) -> dict[str, int]:
            prompts = {
                a: str(o["prompt"])
                for a, o in observations.items()
                if isinstance(o, Mapping) and "prompt" in o
            }
            team = base.with_prompts(prompts) if prompts else base
            actions = {}
            for agent, obs in observations.items():
                member = team.by_id[agent]
                text = str(obs["ticket"])
                drafted = {INTENTS[i] for i, flag in enumerate(obs["draft"]) if flag}
                wanted = self.answer(text, team)
                if member.reviewer:
                    everything = {i for owned in wanted.values() for i in owned}
                    done = bool(drafted) and everything <= drafted
                    actions[agent] = member.actions.index("approve" if done else "continue")
                    continue
                todo = [i for i in wanted[agent] if i not in drafted]
                intent = todo[0] if todo else None
                name = (
                    "pass"
                    if intent is None
                    else next(a for a in member.actions if a != "pass" and _answers(a, intent))
                )
                actions[agent] = member.actions.index(name)
            return actions

        return act

    # -------------------------------------------------------------------------------------- files
    def save(self, directory: str | Path) -> Path:
        """``model.safetensors`` (the scorer) and ``team.json`` (config, roster with its prompts)."""
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        save_file(
            {k: v.contiguous() for k, v in self.scorer.state_dict().items()},
            str(directory / "model.safetensors"),
        )
        meta = {
            "format": "mase.prompt_team/1",
            "config": asdict(self.config),
            "roster": self.roster.to_list() if self.roster is not None else None,
        }
        (directory / "team.json").write_text(json.dumps(meta, indent=1))
        return directory

    @classmethod
    def load(cls, directory: str | Path, backbone: Any) -> PromptTeam:
        """A saved team (its roster and prompts included), reading through ``backbone``."""
        from safetensors.torch import load_file

        directory = Path(directory)
        meta = json.loads((directory / "team.json").read_text())
        if meta.get("format") != "mase.prompt_team/1":
            raise ValueError(f"{directory} holds no prompt-conditioned team")
        roster = None
        if meta.get("roster"):
            roster = Roster(
                [Member(m["id"], m["role"], tuple(m["intents"]), m["prompt"]) for m in meta["roster"]]
            )
        team = cls(backbone, PromptTeamConfig(**meta["config"]), roster)
        team.scorer.load_state_dict(load_file(str(directory / "model.safetensors")))
        return team


def _answers(action: str, intent: str) -> bool:
    from agents.envs.customer_service.tickets import INTENT_ACTION

    return INTENT_ACTION[intent] == action
