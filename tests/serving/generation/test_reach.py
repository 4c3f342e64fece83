"""What a server lets a generation backend reach (`serving.generation.reach`): only the hosts and key variables
its operator listed, decided from the URL's text, and no redirect is ever followed, against real HTTP servers on
loopback that record what they receive."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agents import places
from serving.generation import GenerationConfig, GenerationError, Reach, make_generator
from serving.generation.reach import LOCAL_MODEL_MESSAGE, HostRule, parse_host_rule
from tests.serving.generation.conftest import SECRET, recording_server

ASK = [{"role": "user", "content": "where is my parcel?"}]


def remote(url: str, **extra) -> GenerationConfig:
    return GenerationConfig(backend="openai_compatible", model="m", base_url=url, max_retries=0, **extra)


def test_host_rules_are_read_in_their_written_forms_and_anything_else_is_refused():
    assert parse_host_rule("127.0.0.1:8001") == HostRule("127.0.0.1", None, 8001)
    assert parse_host_rule(" HTTPS://API.Example.com ") == HostRule("api.example.com", "https", None)
    assert parse_host_rule("*.example.com:*") == HostRule("*.example.com", None, None, any_port=True)
    assert parse_host_rule("[::1]:9000") == HostRule("::1", None, 9000)
    for wrong in ("*", "ftp://host", "host:0", "host:70000", "host/v1", "user@host", "a..b", "", "host:x"):
        with pytest.raises(ValueError):
            parse_host_rule(wrong)
    with pytest.raises(ValueError) as err:
        Reach.parse(["ok.example.com", "*"], ["OPENAI_API_KEY", "NOT-A-NAME"])
    assert "'*'" in str(err.value) and "NOT-A-NAME" in str(err.value)


def test_only_listed_hosts_schemes_and_ports_are_allowed():
    reach = Reach.parse(["127.0.0.1:8001", "https://api.example.com", "*.models.example.org:*", "[::1]:9000"])
    allowed = [
        "http://127.0.0.1:8001/v1",
        "https://127.0.0.1:8001/v1",
        "https://api.example.com/v1",
        "https://API.example.com:443/v1",
        "http://eu.models.example.org:1234/v1",
        "http://[::1]:9000/v1",
    ]
    refused = [
        "http://127.0.0.1:8002/v1",  # another port of an allowed host
        "http://127.0.0.1/v1",
        "http://localhost:8001/v1",  # the same machine under another name is not listed
        "http://api.example.com/v1",  # https only
        "https://api.example.com:8443/v1",
        "http://models.example.org/v1",  # the domain itself is not one of its sub-domains
        "http://169.254.169.254/latest/meta-data/",
        "http://2130706433:8001/v1",  # 127.0.0.1 written as a number is not the rule as written
        "http://user:pass@127.0.0.1:8001/v1",
        "file:///etc/passwd",
    ]
    assert [url for url in allowed if reach.url_problem(url)] == []
    assert [url for url in refused if reach.url_problem(url) is None] == []
    # the answer is the same for a host that exists and answers and one that does not exist at all
    assert reach.url_problem("http://127.0.0.1:5432/v1") == reach.url_problem(
        "http://no-such-host.invalid/v1"
    )
    assert "api.example.com" in reach.url_problem("http://10.0.0.1/v1")
    assert "allows no remote" in Reach().url_problem("http://127.0.0.1:8001/v1")


def test_only_listed_variables_may_hold_a_key_and_other_backends_need_nothing():
    reach = Reach.parse(["127.0.0.1:*"], ["OPENAI_API_KEY"])
    assert reach.problems(remote("http://127.0.0.1:1/v1", api_key_env="OPENAI_API_KEY")) == {}
    refused = reach.problems({"backend": "openai_compatible", "base_url": "http://10.0.0.1/v1",
                              "api_key_env": "SECRET_KEY"})  # fmt: skip
    assert set(refused) == {"base_url", "api_key_env"} and "OPENAI_API_KEY" in refused["api_key_env"]
    assert Reach().problems({"backend": "template"}) == {} and Reach().problems(GenerationConfig()) == {}


def test_a_refused_backend_never_connects_and_never_reads_the_variable(monkeypatch):
    monkeypatch.setenv("MASE_TEST_SERVER_SECRET", SECRET)
    with recording_server() as (url, seen):
        other_port = Reach.parse([f"127.0.0.1:{int(url.split(':')[2].split('/')[0]) + 1}"])
        with pytest.raises(GenerationError) as err:
            make_generator(remote(url), reach=other_port)
        assert err.value.kind == "config" and "base_url" in str(err.value)
        allowed_host = Reach.parse(["127.0.0.1:*"])
        with pytest.raises(GenerationError) as err:
            make_generator(remote(url, api_key_env="MASE_TEST_SERVER_SECRET"), reach=allowed_host)
        assert "api_key_env" in str(err.value) and SECRET not in str(err.value)
        listed = Reach.parse(["127.0.0.1:*"], ["MASE_TEST_SERVER_SECRET"])
        backend = make_generator(remote(url, api_key_env="MASE_TEST_SERVER_SECRET"), reach=listed)
        answer = backend.generate("s", ASK)
        backend.close()
    assert answer.text == "Your parcel is on its way."
    assert seen == [{"path": "/v1/chat/completions", "authorization": f"Bearer {SECRET}"}]


def test_a_redirect_is_never_followed_even_to_an_allowed_host():
    with recording_server() as (elsewhere, received), recording_server(redirect_to=elsewhere) as (url, seen):
        backend = make_generator(remote(url), api_key=SECRET, reach=Reach.parse(["127.0.0.1:*"]))
        with pytest.raises(GenerationError) as err:
            backend.generate("s", ASK)
        backend.close()
    assert err.value.kind == "error_status" and err.value.status == 302
    assert len(seen) == 1 and received == []


def test_under_a_reach_a_local_model_is_a_name_in_the_models_directory(tmp_path, monkeypatch):
    models = tmp_path / "models"
    (models / "empty").mkdir(parents=True)
    monkeypatch.setattr(places, "_places", replace(places.places(), models_dir=models))
    reach = Reach()
    local = GenerationConfig(backend="local", model="")
    for path in ("/etc", str(models / "empty"), "../models", "empty/../empty", "~"):
        assert reach.problems(replace(local, model=path)) == {"model": LOCAL_MODEL_MESSAGE}
        with pytest.raises(GenerationError) as err:
            make_generator(replace(local, model=path), reach=reach)
        assert str(err.value) == f"model: {LOCAL_MODEL_MESSAGE}"
    assert "no model named 'absent'" in reach.problems(replace(local, model="absent"))["model"]
    with pytest.raises(GenerationError) as err:  # a name that resolves, but holds no model
        make_generator(replace(local, model="empty"), reach=reach)
    assert (
        err.value.kind == "config" and "config.json" in str(err.value) and str(models) not in str(err.value)
    )
    (models / "broken").mkdir()
    (models / "broken" / "config.json").write_text("{not json")
    with pytest.raises(GenerationError) as err:  # the loader's own words (with the path) stay in the log
        make_generator(replace(local, model="broken"), reach=reach)
    assert "'broken' of the models directory cannot be loaded" in str(err.value)
    assert str(models) not in str(err.value)
    with pytest.raises(GenerationError) as err:  # without a reach (a user's own machine) a path is a path
        make_generator(replace(local, model=str(models / "empty")))
    assert str(models / "empty") in str(err.value)
