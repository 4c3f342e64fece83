"""Where a generation backend may connect, which environment variables may hold its API key, and which
model directories a local backend may load.

On a server these are decisions of whoever runs it, not of a project member who edits a deployment: a
``base_url`` of the member's choosing would make the server send its requests (and the key it holds) to any
host it can reach, internal ones included, an ``api_key_env`` of their choosing would send any of the
server's environment variables (its database password, its signing key) as a bearer token, and a local
``model`` path would load any directory. The web layer hands the operator's choice to the backends as a
`Reach`; the command line passes none (a user's own machine reaches what its user likes). Under a `Reach`, a
local backend's model is a name in the models directory the server configured (`agents.places`), never a
path, and no message names that directory's path.

A host rule is ``host``, ``host:port`` or ``host:*`` (any port), optionally behind a scheme
(``https://api.example.com``: that scheme only; without one, http and https) and with a leading ``*.``
(``*.example.com``: any sub-domain of example.com, not example.com itself). A rule without a port allows only
the scheme's default port (80, 443). IPv6 hosts are written in brackets (``[::1]:8001``). Hosts are compared
as written, after lower-casing: no name is resolved, so the answer never depends on what exists on the
network (a refused URL reads the same whether its host answers or not).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agents import places

SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST = re.compile(r"(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\]")
_RULE = re.compile(r"(?P<host>\[[^\]]*\]|[^:/@]*)(?::(?P<port>\*|[0-9]{1,5}))?")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
LOCAL_MODEL_MESSAGE = (
    "on this server the local writer's model is the name of a model in the server's models directory; "
    "paths are not accepted"
)


@dataclass(frozen=True)
class HostRule:
    """One allowed host: ``scheme`` None allows http and https; ``port`` None allows the scheme's default
    port only; ``any_port`` allows every port; ``host`` starting with ``*.`` matches sub-domains."""

    host: str
    scheme: str | None = None
    port: int | None = None
    any_port: bool = False

    def allows(self, scheme: str, host: str, port: int | None) -> bool:
        if self.scheme is not None and scheme != self.scheme:
            return False
        if self.host.startswith("*."):
            if not host.endswith(self.host[1:]):  # ".example.com": never example.com itself
                return False
        elif host != self.host:
            return False
        if self.any_port:
            return True
        wanted = self.port if self.port is not None else DEFAULT_PORTS[scheme]
        return (port if port is not None else DEFAULT_PORTS[scheme]) == wanted

    def __str__(self) -> str:
        port = ":*" if self.any_port else (f":{self.port}" if self.port is not None else "")
        return f"{self.scheme + '://' if self.scheme else ''}{self.host}{port}"


def parse_host_rule(entry: str) -> HostRule:
    """A `HostRule` from its written form (see the module docstring); ValueError says what is wrong."""
    text, scheme = entry.strip().lower(), None
    if "://" in text:
        scheme, text = text.split("://", 1)
        if scheme not in SCHEMES:
            raise ValueError(f"{entry!r}: the scheme must be http or https")
    written = _RULE.fullmatch(text)
    if written is None or not _HOST.fullmatch(written["host"]):
        raise ValueError(
            f"{entry!r} is not a host rule; write host, host:port or host:*, e.g. 127.0.0.1:8001, "
            "https://api.example.com or *.example.com"
        )
    port = written["port"]
    if port not in (None, "*") and not 1 <= int(port) <= 65535:
        raise ValueError(f"{entry!r}: the port must be a number from 1 to 65535, or *")
    number = int(port) if port not in (None, "*") else None
    return HostRule(written["host"].strip("[]"), scheme, number, any_port=port == "*")


@dataclass(frozen=True)
class Reach:
    """The hosts generation backends may connect to, and the environment variables that may hold their keys
    (empty: no remote backend, and keys only stored ones)."""

    hosts: tuple[HostRule, ...] = ()
    key_envs: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, hosts: Iterable[str], key_envs: Iterable[str] = ()) -> Reach:
        """From written host rules and variable names; ValueError lists every entry that is wrong."""
        rules, errors = [], []
        for entry in hosts:
            try:
                rules.append(parse_host_rule(entry))
            except ValueError as exc:
                errors.append(str(exc))
        names = [n.strip() for n in key_envs if n.strip()]
        errors += [f"{n!r} is not an environment variable name" for n in names if not _ENV_NAME.fullmatch(n)]
        if errors:
            raise ValueError("; ".join(errors))
        return cls(tuple(rules), frozenset(names))

    def url_problem(self, url: str) -> str | None:
        """Why a backend may not connect to ``url`` (None: it may). Decided from the URL's text alone."""
        try:
            parts = urlsplit(url)
            scheme, host, port = parts.scheme.lower(), (parts.hostname or "").rstrip("."), parts.port
        except ValueError:
            return "must be an http(s) URL with a valid port"
        if scheme not in SCHEMES or not host:
            return "must be an http(s) URL, e.g. http://127.0.0.1:8001/v1"
        if parts.username is not None or parts.password is not None:
            return "must not hold a user name or password (store the API key in api_key)"
        if any(rule.allows(scheme, host, port) for rule in self.hosts):
            return None
        if not self.hosts:
            return (
                "this server allows no remote generation backend; its operator lists the hosts one may reach"
            )
        allowed = ", ".join(str(rule) for rule in self.hosts)
        return f"this server's generation backends may reach only: {allowed}"

    def key_env_problem(self, name: str) -> str | None:
        """Why ``name`` may not hold a backend's key (None: it may; "" names none)."""
        if not name or name in self.key_envs:
            return None
        listed = f" ({', '.join(sorted(self.key_envs))})" if self.key_envs else ""
        return (
            "not one of the environment variables this server's operator set aside for API keys"
            f"{listed}; send the key itself as api_key instead"
        )

    def problems(self, config: Mapping[str, Any] | Any) -> dict[str, str]:
        """By setting, why a generation config (a `GenerationConfig` or its mapping) may not be used here.
        A local model is looked up only inside the models directory, and only when it is a name."""
        get = (
            config.get
            if isinstance(config, Mapping)
            else lambda key, default="": getattr(config, key, default)
        )
        if get("backend", "template") == "local":
            problem = local_model_problem(str(get("model", "") or ""))
            return {"model": problem} if problem else {}
        if get("backend", "template") != "openai_compatible":
            return {}
        found = {
            "base_url": self.url_problem(str(get("base_url", "") or "")),
            "api_key_env": self.key_env_problem(str(get("api_key_env", "") or "")),
        }
        return {key: text for key, text in found.items() if text}


def local_model_problem(model: str) -> str | None:
    """Why ``model`` is not a model of the server's models directory (None: it is): a value that is not a name
    gets one message, whatever it points to, and is never looked up."""
    if not places.is_name(model):
        return LOCAL_MODEL_MESSAGE
    if places.model_path(model) == Path(model):  # did not resolve inside the models directory
        return f"no model named {model!r} in the server's models directory"
    return None
