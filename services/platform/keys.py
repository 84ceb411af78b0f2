"""Token secret and signing key: from settings, else a dev key file under var/."""

from __future__ import annotations

import dataclasses
import json
import os
import secrets as _secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.settings import Settings
from services.platform.signing import load_private_key, private_key_hex, public_key_hex


class SettingError(ValueError):
    """A key setting (NEON_PUBLIC_KEY, NEON_PREVIOUS_PUBLIC_KEYS, NEON_TOKEN_SECRET_PREVIOUS)
    is malformed or does not fit the others: its words name the setting."""


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
    previous_public_keys: tuple[str, ...] = ()
    """NEON_PREVIOUS_PUBLIC_KEYS: the organiser's rotated-out public keys (hex, lower case,
    without the current one), trusted beside it by :meth:`trusted_keys`."""

    def verify_key(self) -> str:
        """The public key (hex) to verify the organiser's signatures with; :class:`NoKeys`
        when there is neither NEON_PUBLIC_KEY nor a signing key."""
        if self.public_key:
            return self.public_key
        if self.signing_key is None:
            raise NoKeys("no key to verify signatures with: set NEON_PUBLIC_KEY (the "
                         "organiser's Ed25519 public key, 64 hex digits: `neon public-key`)")
        return public_key_hex(self.signing_key)

    def trusted_keys(self) -> tuple[str, ...]:
        """The organiser's keys to trust signatures of (hex): the current one
        (:meth:`verify_key`) first, then the earlier ones the operator named
        (NEON_PREVIOUS_PUBLIC_KEYS), for what was signed before a rotation."""
        current = self.verify_key()
        return (current, *(k for k in self.previous_public_keys if k != current))


def _public_key(text: str, setting: str = "NEON_PUBLIC_KEY") -> str:
    """NEON_PUBLIC_KEY (or ``setting``'s key) checked: 64 hex digits (or empty), lower case."""
    if not text:
        return ""
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise SettingError(f"{setting}: give the 64 hex digits of the organiser's Ed25519 "
                           "public key (`neon public-key` prints it)")
    return raw.hex()


def previous_token_secret(text: str) -> tuple[bytes, ...]:
    """NEON_TOKEN_SECRET_PREVIOUS checked: none, or one secret of at least 16 bytes (as the
    token secret itself must be)."""
    if not text:
        return ()
    if len(text.encode()) < 16:
        raise SettingError("NEON_TOKEN_SECRET_PREVIOUS: give the token secret used before the "
                           "rotation (at least 16 bytes), or leave it unset")
    return (text.encode(),)


def _previous_public_keys(settings: Settings) -> tuple[str, ...]:
    out: list[str] = []
    for text in settings.previous_public_keys:
        key = _public_key(text, "NEON_PREVIOUS_PUBLIC_KEYS")
        if key not in out:
            out.append(key)
    return tuple(out)


def _with_previous(keys: Keys, settings: Settings) -> Keys:
    """``keys`` with the settings' rotated-out public keys, the rotated-out token secret
    checked (every service's TokenIssuer reads NEON_TOKEN_SECRET_PREVIOUS itself, whoever
    builds it: a malformed one stops the service here, at start-up)."""
    previous_token_secret(settings.token_secret_previous)
    current = keys.public_key
    return dataclasses.replace(
        keys, previous_public_keys=tuple(k for k in _previous_public_keys(settings)
                                         if k != current))


def _keys(secret: str, key: str, public: str) -> Keys:
    """Keys, the public key from NEON_PUBLIC_KEY (``public``) when set, which must then be the
    signing key's public half when there is one (else the signers and the verifiers of one
    deployment would disagree: results refused, replays reported unsigned)."""
    private = load_private_key(key) if key else None
    public = _public_key(public)
    if private is not None:
        own = public_key_hex(private)
        if public and public != own:
            raise SettingError(f"NEON_PUBLIC_KEY {public[:16]}... is not the public half of the "
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
    already in it) keeps the keys it had, those of ``var/keys.json``.

    A rotation's earlier token secret and public keys (NEON_TOKEN_SECRET_PREVIOUS,
    NEON_PREVIOUS_PUBLIC_KEYS) come with them, checked: a malformed one is a ValueError."""
    return _with_previous(_load_keys(settings, create, signing), settings)


def _load_keys(settings: Settings, create: bool, signing: bool) -> Keys:
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
