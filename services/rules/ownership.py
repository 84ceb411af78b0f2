"""Which rules replica owns a match: rendezvous hashing of the match id over the replicas.

Every replica of one rules service holds the same list of replicas (``NEON_RULES_PEERS``, in
ordinal order), so each computes the same owner for a match id without talking to the others.
Rendezvous (highest random weight) hashing scores every replica with SHA-256 of its ordinal and
the match id and picks the highest: the choice is stable across processes and machines, spreads
matches evenly, and when a replica is added only the matches the new one wins change owner
(about 1/N of them), never a match between two old replicas.

Cost: one SHA-256 of a short string per replica per call (a few microseconds for N <= 16).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

_DOMAIN = b"neon-rules-owner\x00"


def weight(replica: int, match_id: str) -> int:
    digest = hashlib.sha256(_DOMAIN + f"{replica}\x00{match_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def owner_of(match_id: str, replicas: int) -> int:
    """The ordinal (0..replicas-1) of the replica that owns ``match_id``."""
    if replicas < 1:
        raise ValueError("there must be at least one replica")
    return max(range(replicas), key=lambda r: weight(r, match_id))


@dataclass(frozen=True)
class Replicas:
    """The replicas of one rules service (addresses in ordinal order) and which one this is."""

    peers: tuple[str, ...]
    me: int

    def __post_init__(self) -> None:
        if not self.peers:
            raise ValueError("NEON_RULES_PEERS lists no replica")
        if not 0 <= self.me < len(self.peers):
            raise ValueError(
                f"this replica's ordinal {self.me} is not a place in NEON_RULES_PEERS "
                f"({len(self.peers)} replicas): set NEON_RULES_ORDINAL or run as a StatefulSet pod")

    @property
    def fingerprint(self) -> str:
        """Names the replica list: two replicas with different lists must not trust each other's
        forwarding (during a rollout that changes the count, say)."""
        return hashlib.sha256("\n".join(self.peers).encode()).hexdigest()[:16]

    def owner(self, match_id: str) -> int:
        return owner_of(match_id, len(self.peers))

    def mine(self, match_id: str) -> bool:
        return self.owner(match_id) == self.me
