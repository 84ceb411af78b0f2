"""Dev keys (no NEON_TOKEN_SECRET / NEON_SIGNING_KEY) belong to one deployment: each
namespace makes its own in ``var/<ns>/``, so a token of one is refused by another."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from services.platform.errors import Unauthenticated
from services.platform.keys import load_keys
from services.platform.settings import Settings, load
from services.platform.signing import private_key_hex
from services.platform.tokens import TokenIssuer


def _dev(var: Path, namespace: str = "") -> Settings:
    return dataclasses.replace(load(), var_dir=var, namespace=namespace, token_secret="",
                               signing_key="", env="dev")


def _same(a, b) -> bool:  # noqa: ANN001
    return (a.token_secret, private_key_hex(a.signing_key)) == \
        (b.token_secret, private_key_hex(b.signing_key))


def test_each_namespace_has_its_own_dev_keys_and_refuses_the_others_tokens(tmp_path: Path) -> None:
    root, a, b = (load_keys(_dev(tmp_path, ns)) for ns in ("", "a", "b"))
    assert (tmp_path / "a" / "keys.json").exists() and (tmp_path / "keys.json").exists()
    assert not _same(root, a) and not _same(a, b) and not _same(root, b)
    assert _same(a, load_keys(_dev(tmp_path, "a")))  # made once, then read
    token = TokenIssuer(a.token_secret).issue("organiser", "*")
    assert TokenIssuer(a.token_secret).verify(token).role == "organiser"
    with pytest.raises(Unauthenticated):
        TokenIssuer(b.token_secret).verify(token)


def test_a_namespace_made_before_keeps_the_keys_it_had(tmp_path: Path) -> None:
    root = load_keys(_dev(tmp_path))
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "rules-neon.sqlite").write_bytes(b"")  # its stores were already there
    assert _same(load_keys(_dev(tmp_path, "old")), root)
    assert not _same(load_keys(_dev(tmp_path, "new")), root)
