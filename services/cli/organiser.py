"""The organiser's token of the ``neon`` organiser commands.

Every organiser command (``neon tournament create|register|...``, ``neon abandon``, ``neon
export``) acts with ``--token`` (or ``NEON_TOKEN``) when given: an organiser token minted on
the server host with ``neon token organiser NAME``, so an organiser can run the commands from
a machine that does not hold the deployment's keys. Without it the command mints an organiser
token with this machine's deployment keys (``NEON_TOKEN_SECRET``, else ``keys.json`` in the
deployment's folder), as before, and never makes new keys: a token signed with keys made on
the spot is one no running deployment accepts.

Every other client command that mints a token or reads the deployment's keys (``neon play``,
``queue``, ``simulate`` and ``tournament simulate`` without ``--embedded``, ``tournament
play`` without ``--token``, ``public-key``) finds them through :func:`token_secret` and
:func:`signing_key` too: without them it says what is missing and what to do, and exits 2.
Only a backend that starts (``neon up``, ``neon serve``, ``--embedded``) makes keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from services.cli.errors import FAILED, USAGE, CliError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.platform.keys import Keys
    from services.platform.settings import Settings
    from services.platform.tokens import TokenIssuer

TOKEN_HELP = ("the token to act with: an organiser's (`neon token organiser NAME` on the "
              "server host; register, check-in, withdraw and drop also take a player's, for "
              "its own player only); default: an organiser token minted with this machine's "
              "deployment keys")
ORGANISER_TTL = 12 * 3600
"""``neon token organiser``'s default lifetime (a player token's is 24 hours)."""
PLAYER_TTL = 24 * 3600
MAX_TTL = 30 * 24 * 3600
GET_ONE = ("mint one on the server host with `neon token organiser NAME` and pass it with "
           "--token or NEON_TOKEN, or leave out --token and NEON_TOKEN to mint one with this "
           "machine's deployment keys")
"""How to get an organiser token, for the lines of a refused call."""


def token_option() -> Any:
    """``--token`` (``NEON_TOKEN``) of every organiser command: one definition."""
    return typer.Option("", "--token", envvar="NEON_TOKEN", show_default=False, help=TOKEN_HELP)


def keys_file(settings: Settings) -> str:
    """Where this machine's deployment keys would be, in words for an error line."""
    return str(settings.state_dir / "keys.json")


def _stored_keys(settings: Settings, for_what: str, signing: bool = False) -> Keys:
    """The deployment's keys as ``load_keys`` reads them, never made here (``create``
    False): without them a CliError (exit 2) says where they were looked for (``signing``:
    for the signing key) and, in ``for_what``'s words, what to do instead."""
    from services.platform.keys import NoKeys, SettingError, load_keys

    try:
        return load_keys(settings, create=False)
    except NoKeys:
        setting = "NEON_SIGNING_KEY" if signing else "NEON_TOKEN_SECRET"
        where = (f"tournament mode and no {setting}" if settings.tournament
                 else f"no {setting} and no {keys_file(settings)}")
        raise CliError(f"no deployment keys on this machine ({where}): {for_what}",
                       USAGE) from None
    except SettingError as err:  # a setting's words name it: not the keys file's fault
        raise CliError(str(err), USAGE) from None
    except (RuntimeError, ValueError, KeyError) as err:
        raise CliError(f"the deployment keys in {keys_file(settings)} cannot be read: "
                       f"{err}", USAGE) from None


def token_secret(settings: Settings, for_what: str) -> bytes:
    """This deployment's token secret, never made here: without one a CliError (exit 2) says
    where it was looked for and, in ``for_what``'s words, what to do instead."""
    secret = (settings.token_secret.encode() if settings.token_secret
              else _stored_keys(settings, for_what).token_secret)
    if len(secret) < 16:  # TokenIssuer's minimum
        raise CliError("the deployment's token secret is shorter than 16 bytes", USAGE)
    return secret


def issuer(settings: Settings, for_what: str) -> TokenIssuer:
    """A token issuer with this deployment's token secret (:func:`token_secret`: never
    made here), for a client command that mints its own token: it verifies none, so it
    takes no earlier secret (NEON_TOKEN_SECRET_PREVIOUS is the services' to check)."""
    from services.platform.tokens import TokenIssuer

    return TokenIssuer(token_secret(settings, for_what), external=None, previous=())


def signing_key(settings: Settings, for_what: str) -> Ed25519PrivateKey:
    """This deployment's signing key (NEON_SIGNING_KEY, else ``keys.json``), never made
    here: without one a CliError (exit 2), as :func:`token_secret`."""
    from services.platform.signing import load_private_key

    if not settings.signing_key:
        return _stored_keys(settings, for_what, signing=True).signing_key
    try:
        return load_private_key(settings.signing_key)
    except ValueError as err:
        raise CliError(f"NEON_SIGNING_KEY cannot be read: {err}", USAGE) from None


def needs_keys(command: str) -> str:
    """What to do, for the no-keys line of a client command with ``--embedded`` (``neon
    play``, ``queue``, ``simulate``, ``tournament simulate``) that mints its tokens with the
    deployment's keys when it talks to a running deployment."""
    return (f"`neon {command}` mints its tokens with the deployment's keys: run it on the "
            "server host or where they are (NEON_VAR_DIR, NEON_NAMESPACE, NEON_TOKEN_SECRET), "
            "or add --embedded to start a backend for the command")


NO_KEYS = ("pass an organiser token with --token or NEON_TOKEN (mint one on the server host "
           "with `neon token organiser NAME`), or run this where the deployment's keys are "
           "(NEON_VAR_DIR, NEON_NAMESPACE, NEON_TOKEN_SECRET)")


def organiser_token(settings: Settings, given: str = "", name: str = "organiser",
                    ttl: int = 3600) -> str:
    """``given`` (--token, NEON_TOKEN) when there is one, else an organiser token named
    ``name`` minted with this machine's deployment keys: "organiser", the dev organiser's
    name everywhere (``neon up``'s organiser.token, the tournament commands), recorded as
    who acted (an abandoned match's ``by``, the tournament's log)."""
    if given:
        return given
    return issuer(settings, NO_KEYS).issue("organiser", "*", player=name, ttl=ttl)


def refused(err: Any, command: str, given: bool) -> CliError | None:
    """The line for an organiser command's call the service refused for its token
    (UNAUTHENTICATED, PERMISSION_DENIED), or None for any other failure. ``given``: the
    token came from --token or NEON_TOKEN (else it was minted with this machine's keys)."""
    import grpc

    code = err.code() if hasattr(err, "code") else None
    if code not in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        return None
    said = f"{code.name}: {err.details() or 'refused'}"
    if given:
        message = (f"{said}; `neon {command}` needs an organiser token of this deployment: "
                   f"{GET_ONE}")
    elif code == grpc.StatusCode.UNAUTHENTICATED:
        message = (f"{said}; the organiser token minted with this machine's deployment keys "
                   "is refused: they are not the deployment's; pass an organiser token with "
                   "--token or NEON_TOKEN (mint one on the server host with `neon token "
                   "organiser NAME`)")
    else:
        return None
    return CliError(message, FAILED, code.name, err.details() or "")


def command_name() -> str:
    """The running command without the program's name, e.g. ``tournament start`` ("this
    command" outside one). Typer runs commands in its own copy of click (``typer._click``;
    older versions in click itself): the context is looked up in either."""
    import importlib

    for module in ("typer._click.globals", "click"):
        try:
            current = importlib.import_module(module).get_current_context
        except (ImportError, AttributeError):
            continue
        ctx = current(silent=True)
        names: list[str] = []
        while ctx is not None and ctx.parent is not None:
            names.append(ctx.info_name or "")
            ctx = ctx.parent
        if names:
            return " ".join(reversed(names))
    return "this command"
