"""Token secret and signing key: from settings, else a dev key file under var/."""

from __future__ import annotations

import json
import os
import secrets as _secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.settings import Settings
from services.platform.signing import load_private_key, private_key_hex


@dataclass(frozen=True)
class Keys:
    token_secret: bytes
    signing_key: Ed25519PrivateKey


class NoKeys(RuntimeError):
    """There are no keys to load: tournament mode without both settings, or (``create``
    False) no ``keys.json`` to read."""


def load_keys(settings: Settings, create: bool = True) -> Keys:
    """Keys from NEON_TOKEN_SECRET / NEON_SIGNING_KEY; in dev, ``keys.json`` is made once in
    the deployment's folder (``settings.state_dir``: ``var/``, or ``var/<namespace>/``), so
    deployments of other namespaces never accept each other's tokens. ``create`` False (a
    client command, whose keys must be the running deployment's): :class:`NoKeys` instead
    of making them.

    A namespace whose folder was made before its keys moved there (its SQLite files were
    already in it) keeps the keys it had, those of ``var/keys.json``."""
    if settings.token_secret and settings.signing_key:
        return Keys(settings.token_secret.encode(), load_private_key(settings.signing_key))
    if settings.tournament:
        raise NoKeys("tournament mode needs NEON_TOKEN_SECRET and NEON_SIGNING_KEY")
    folder = settings.state_dir
    path = folder / "keys.json"
    shared = settings.var_dir / "keys.json"
    if not path.exists() and folder != settings.var_dir and shared.exists() \
            and any(folder.glob("*.sqlite")):
        _write_once(path, json.loads(shared.read_text()))
    if not path.exists() and not create:
        raise NoKeys(f"no {path}")
    if not path.exists():
        _write_once(path, {
            "token_secret": _secrets.token_hex(32),
            "signing_key": private_key_hex(Ed25519PrivateKey.generate()),
        })
    data = json.loads(path.read_text())
    secret = settings.token_secret or data["token_secret"]
    key = settings.signing_key or data["signing_key"]
    return Keys(secret.encode(), load_private_key(key))


def create_private(path: Path, text: str) -> None:
    """A new file ``path`` holding ``text``, made readable by its owner only from the start
    (whatever the umask): no moment in which another local user may open a secret in it.
    FileExistsError when ``path`` is there."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


def _write_once(path: Path, data: dict[str, str]) -> None:
    """Write ``path`` unless it exists (racing processes agree on the first written), readable
    by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)  # left by a process of this pid that died writing it
    create_private(tmp, json.dumps(data))
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    tmp.unlink()
