"""Episodes for the update: batches sampled from the environment's fast path, as embeddings.

`Episodes` is the part of `ReinforceCommTrainer` between the environment and the networks: per-agent
embedding tables encoded once from each agent's vocabulary (or token states, with `token_attention`),
batches of fresh episodes looked up in them, the same clues in other phrasings (paraphrase
consistency), and what the receivers hear over the HCP link. It reads the trainer's `env`, `agents`,
`backbone`, `adapters`, `policy`, `link`, `config`, `device` and `rng`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch


def _accepts_with_texts(env: Any) -> bool:
    """Whether `env.sample_batch` takes `with_texts=` (skipping the strings saves most of its cost)."""
    cached = getattr(type(env), "_mase_with_texts", None)
    if cached is None:
        import inspect

        try:
            cached = "with_texts" in inspect.signature(env.sample_batch).parameters
        except (TypeError, ValueError):
            cached = False
        try:
            type(env)._mase_with_texts = cached
        except (AttributeError, TypeError):
            pass
    return cached


def _get(obj: Any, key: str) -> Any:
    return obj[key] if isinstance(obj, Mapping) else getattr(obj, key)


class Episodes:
    """Sampling and embedding episodes (a part of `ReinforceCommTrainer`)."""

    def _n_actions(self, agent: str) -> int:
        space = self.env.action_space(agent)
        return int(getattr(space, "n", 1))

    def embedding_table(self, env: Any) -> torch.Tensor:
        """`[N, V_max, dim]` embeddings of every text each agent can show in `env` (encoded once). With
        `token_attention` the table is pooled afresh from the cached token states by the agents' current
        queries, so the task loss reaches them."""
        key = id(env)
        vocabularies = None
        if key not in self._text_bytes:
            vocabularies = [list(env.vocabulary(a)) for a in self.agents]
            self._text_bytes[key] = np.zeros((len(self.agents), max(map(len, vocabularies))), np.int64)
            for i, texts in enumerate(vocabularies):
                self._text_bytes[key][i, : len(texts)] = [len(t.encode("utf-8")) for t in texts]
        if self.config.token_attention:
            return self.policy.pool_tokens(*self._token_table(env))
        if key not in self._tables:
            vocabularies = vocabularies or [list(env.vocabulary(a)) for a in self.agents]
            table = torch.zeros(len(self.agents), max(map(len, vocabularies)), self.backbone.dim)
            with torch.no_grad():
                for i, (agent, texts) in enumerate(zip(self.agents, vocabularies, strict=True)):
                    adapter = agent if self.adapters is not None else None
                    table[i, : len(texts)] = self.backbone.encode(texts, adapter=adapter).cpu()
            self._tables[key] = table.to(self.device)
        return self._tables[key]

    def _token_table(self, env: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """Token states `[N, V_max, L, dim]` of every text each agent can show in `env`, and their mask."""
        key = id(env)
        if key not in self._token_tables:
            encoded = [self.backbone.encode_tokens(list(env.vocabulary(a))) for a in self.agents]
            size = max(states.shape[0] for states, _ in encoded)
            length = max(states.shape[1] for states, _ in encoded)
            states = torch.zeros(len(self.agents), size, length, self.backbone.dim, device=self.device)
            mask = torch.zeros(len(self.agents), size, length, dtype=torch.bool, device=self.device)
            for i, (agent_states, agent_mask) in enumerate(encoded):
                v, t = agent_mask.shape
                states[i, :v, :t], mask[i, :v, :t] = agent_states, agent_mask
            self._token_tables[key] = (states, mask)
        return self._token_tables[key]

    def hear(self, embeddings: torch.Tensor, skip: slice | None = None) -> torch.Tensor | None:
        """The senders' embeddings as the receivers get them over the HCP link (None without one).

        Rows in `skip` are replays of earlier rows (the paired twins of explored episodes): they are
        not sent again; the caller copies what their originals were heard as.
        """
        if self.link is None:
            return None
        rows = torch.ones(embeddings.shape[0], dtype=torch.bool)
        if skip is not None:
            rows[skip] = False
        sent = embeddings[rows.to(embeddings.device)].detach().cpu().numpy()
        raw = self._sampled_bytes[rows.numpy()] if self._sampled_bytes is not None else None
        heard = embeddings.detach().clone()
        heard[rows.to(embeddings.device)] = torch.as_tensor(
            self.link.transmit(sent, self._senders, raw), device=embeddings.device
        )
        return heard

    def sample(self, batch_size: int, env: Any = None, rng: np.random.Generator | None = None):
        """A batch of fresh episodes: (embeddings `[B, N, dim]`, secrets `[B]`)."""
        env = env if env is not None else self.env
        rng = rng if rng is not None else self.rng
        needs_texts = self.adapters is not None and self.config.train_adapters and torch.is_grad_enabled()
        if not needs_texts and _accepts_with_texts(env):
            batch = env.sample_batch(batch_size, rng, with_texts=False)  # ids suffice: embeddings are cached
        else:
            batch = env.sample_batch(batch_size, rng)
        ids = _get(batch, "text_ids")
        secrets = torch.as_tensor(np.asarray(_get(batch, "secrets")), dtype=torch.long, device=self.device)
        if needs_texts:
            texts = _get(batch, "texts")
            embeddings = torch.stack([self.backbone.encode(texts[a], adapter=a) for a in self.agents], dim=1)
            return embeddings.to(self.device), secrets
        table = self.embedding_table(env)
        ids_array = np.stack([np.asarray(ids[a]) for a in self.agents], axis=1)
        self._sampled_bytes = self._text_bytes[id(env)][np.arange(len(self.agents)), ids_array]
        index = torch.as_tensor(ids_array, device=self.device)
        agent_index = torch.arange(len(self.agents), device=self.device).unsqueeze(0)
        embeddings = table[agent_index, index]
        self._paraphrased = None
        if self.config.paraphrase_consistency and env is self.env and torch.is_grad_enabled():
            self._paraphrased = self._paraphrase(embeddings, ids_array, table, rng)
        return embeddings, secrets

    def _paraphrase(
        self, embeddings: torch.Tensor, ids: np.ndarray, table: torch.Tensor, rng: np.random.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
        """The sampled clues re-phrased with other templates of the training env (env.paraphrase_ids)."""
        columns, other = [], []
        for i, agent in enumerate(self.agents):
            alternative = self.env.paraphrase_ids(agent, ids[:, i], rng)
            if alternative is not None:
                columns.append(i)
                other.append(table[i, torch.as_tensor(alternative, device=self.device)])
        if not columns:
            return None
        return embeddings, torch.stack(other, dim=1), torch.tensor(columns, device=self.device)
