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


def test_the_dev_keys_are_never_on_disk_readable_by_others(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """keys.json holds the token secret: from the first byte written (even under umask 0) its
    file, the temporary one included, is its owner's only, with no window in which another
    local user could open it."""
    import os
    import stat

    seen: list[tuple[str, int, int]] = []
    real_chmod, real_link = os.chmod, os.link

    def look(path: object) -> None:
        st = os.stat(path)  # type: ignore[arg-type]
        seen.append((str(path), stat.S_IMODE(st.st_mode), st.st_size))

    def chmod(path: object, mode: int, *a: object, **k: object) -> None:
        look(path)
        real_chmod(path, mode, *a, **k)  # type: ignore[arg-type]

    def link(src: object, dst: object, *a: object, **k: object) -> None:
        look(src)
        real_link(src, dst, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "chmod", chmod)
    monkeypatch.setattr(os, "link", link)
    old = os.umask(0)
    try:
        load_keys(_dev(tmp_path))
    finally:
        os.umask(old)
    assert seen, "the keys were written without a look"
    assert [s for s in seen if s[2] and s[1] & 0o077] == [], seen
    assert stat.S_IMODE(os.stat(tmp_path / "keys.json").st_mode) == 0o600
