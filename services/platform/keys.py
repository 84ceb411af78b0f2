"""Token secret and signing key: from settings, else a dev key file under var/."""

from __future__ import annotations

import json
import os
import secrets as _secrets
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.settings import Settings
from services.platform.signing import load_private_key, private_key_hex


@dataclass(frozen=True)
class Keys:
    token_secret: bytes
    signing_key: Ed25519PrivateKey


def load_keys(settings: Settings) -> Keys:
    """Keys from NEON_TOKEN_SECRET / NEON_SIGNING_KEY; in dev, var/keys.json is made once."""
    if settings.token_secret and settings.signing_key:
        return Keys(settings.token_secret.encode(), load_private_key(settings.signing_key))
    if settings.tournament:
        raise RuntimeError("tournament mode needs NEON_TOKEN_SECRET and NEON_SIGNING_KEY")
    path = settings.var_dir / "keys.json"
    if not path.exists():
        settings.var_dir.mkdir(parents=True, exist_ok=True)
        data = {
            "token_secret": _secrets.token_hex(32),
            "signing_key": private_key_hex(Ed25519PrivateKey.generate()),
        }
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.chmod(tmp, 0o600)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        tmp.unlink()
    data = json.loads(path.read_text())
    secret = settings.token_secret or data["token_secret"]
    key = settings.signing_key or data["signing_key"]
    return Keys(secret.encode(), load_private_key(key))
