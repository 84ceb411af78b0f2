"""Token secret and signing key: from settings, else a dev key file under var/."""

from __future__ import annotations

import json
import os
import secrets as _secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.settings import Settings
from services.platform.signing import load_private_key, private_key_hex, public_key_hex


class NoKeys(RuntimeError):
    """There are no keys to load: tournament mode without both settings, or (``create``
    False) no ``keys.json`` to read."""


def signs(service: str) -> bool:
    """Whether ``service`` (a name of ``neon serve``) signs with the organiser's key, so
    needs NEON_SIGNING_KEY: every rules service (results, exports, the HMAC key of its rules
    snapshots) and the tournament (round checkpoints, bundles). The others verify at most,
    with the public key (NEON_PUBLIC_KEY): the gateway (replay reports) and scoring (its
    trusted result key when NEON_TRUSTED_RESULT_KEYS is unset); dice and matchmaking not."""
    return service == "tournament" or service.startswith("rules-")


@dataclass(frozen=True)
class Keys:
    token_secret: bytes
    signing_key: Ed25519PrivateKey | None
    """None only for a service that does not sign, started without NEON_SIGNING_KEY."""
    public_key: str = ""
    """The organiser's public key (hex): NEON_PUBLIC_KEY, else the signing key's."""

    def verify_key(self) -> str:
        """The public key (hex) to verify the organiser's signatures with; :class:`NoKeys`
        when there is neither NEON_PUBLIC_KEY nor a signing key."""
        if self.public_key:
            return self.public_key
        if self.signing_key is None:
            raise NoKeys("no key to verify signatures with: set NEON_PUBLIC_KEY (the "
                         "organiser's Ed25519 public key, 64 hex digits: `neon public-key`)")
        return public_key_hex(self.signing_key)


def _public_key(text: str) -> str:
    """NEON_PUBLIC_KEY checked: 64 hex digits (or empty), lower case."""
    if not text:
        return ""
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise ValueError("NEON_PUBLIC_KEY: give the 64 hex digits of the organiser's Ed25519 "
                         "public key (`neon public-key` prints it)")
    return raw.hex()


def _keys(secret: str, key: str, public: str) -> Keys:
    """Keys, the public key from NEON_PUBLIC_KEY (``public``) when set, which must then be the
    signing key's public half when there is one (else the signers and the verifiers of one
    deployment would disagree: results refused, replays reported unsigned)."""
    private = load_private_key(key) if key else None
    public = _public_key(public)
    if private is not None:
        own = public_key_hex(private)
        if public and public != own:
            raise ValueError(f"NEON_PUBLIC_KEY {public[:16]}... is not the public half of the "
                             f"signing key ({own[:16]}...)")
        public = own
    return Keys(secret.encode(), private, public)


def load_keys(settings: Settings, create: bool = True, signing: bool = True) -> Keys:
    """Keys from NEON_TOKEN_SECRET / NEON_SIGNING_KEY; in dev, ``keys.json`` is made once in
    the deployment's folder (``settings.state_dir``: ``var/``, or ``var/<namespace>/``), so
    deployments of other namespaces never accept each other's tokens. ``create`` False (a
    client command, whose keys must be the running deployment's): :class:`NoKeys` instead
    of making them.

    ``signing`` False (a service that does not sign: :func:`signs`): NEON_TOKEN_SECRET
    alone will do, without NEON_SIGNING_KEY, in tournament mode or with NEON_PUBLIC_KEY
    set; ``signing_key`` is then None and the public key is NEON_PUBLIC_KEY's.

    A namespace whose folder was made before its keys moved there (its SQLite files were
    already in it) keeps the keys it had, those of ``var/keys.json``."""
    if settings.token_secret and (settings.signing_key or not signing and (
            settings.tournament or settings.public_key)):
        return _keys(settings.token_secret, settings.signing_key, settings.public_key)
    if settings.tournament:
        raise NoKeys("tournament mode needs NEON_TOKEN_SECRET and NEON_SIGNING_KEY" if signing
                     else "tournament mode needs NEON_TOKEN_SECRET")
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
    return _keys(secret, key, settings.public_key)


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
