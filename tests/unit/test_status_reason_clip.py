"""grpc_kit.clip: a status reason fits the status trailer however long the input it quotes
(the trailer carries printable ASCII as it is and every other byte as %XX)."""

from __future__ import annotations

from urllib.parse import quote

from services.platform.grpc_kit import MAX_DETAILS_BYTES, clip


def _trailer_bytes(text: str) -> int:
    return len(quote(text, safe="".join(chr(c) for c in range(0x20, 0x7f) if chr(c) != "%")))


def test_a_short_reason_is_untouched() -> None:
    for text in ("", "not your turn: waiting for seat(s) [1]", "é" * 100, "%" * 1000,
                 "a" * MAX_DETAILS_BYTES):
        assert clip(text) == text


def test_a_long_reason_fits_the_trailer_and_says_it_was_cut() -> None:
    for text in ("x" * 60_000, "é" * 60_000, "\U0001F600" * 20_000, "%" * 60_000,
                 "a" * (MAX_DETAILS_BYTES + 1), "'" + "k" * 30_000 + "' is not of type 'integer'"):
        cut = clip(text)
        assert cut != text and cut.endswith(f"(cut: {len(text)} characters)")
        assert _trailer_bytes(cut) <= MAX_DETAILS_BYTES + 40
        assert text.startswith(cut[: cut.rindex("... (cut:")])
