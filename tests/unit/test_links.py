"""Web and e-mail addresses blanked out of prose before its names are read."""

from __future__ import annotations

import pytest

from citeloop.grounding.links import is_host_name, without_links
from tests.linear import scans_linearly


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("see https://a.org/x_y.", "see ."),
        ("(https://a.org/x_(y)) ok", "( )) ok"),  # a Markdown link's bracket ends it
        ("<http://a.org/b>", "< >"),
        ("HTTPS://A.ORG/B and www.b.com/c_d!", "and !"),
        ("mail me_1@a-b.example.org.", "mail ."),
        ("`@property` and a@b and @x.y", "`@property` and a@b and @x.y"),  # no address
        ("file:///tmp/a_b.txt", ""),
    ],
)
def test_addresses_become_spaces_in_place(text: str, kept: str) -> None:
    blanked = without_links(text)
    assert len(blanked) == len(text)
    assert " ".join(blanked.split()) == kept


def test_a_run_longer_than_an_address_may_be_is_no_address() -> None:
    # RFC 5321: a local part of at most 64 characters, a domain of at most 255.
    local = "a" * 65 + "@b.org"
    domain = "a@" + "b." * 130 + "org"
    assert without_links(local) == local
    assert without_links(domain) == domain
    assert without_links("a" * 64 + "@b.org").strip() == ""


@pytest.mark.parametrize(
    ("parts", "host"),
    [
        (["docs", "python", "org"], True),
        (["example", "com"], True),
        (["my_lib", "readthedocs", "io"], True),
        (["astropy", "io"], False),
        (["self", "net"], False),
        (["github", "io"], False),
    ],
)
def test_is_host_name(parts: list[str], host: bool) -> None:
    assert is_host_name(parts) is host


@pytest.mark.parametrize(
    "unit", ["https://", "a@", "@a.", "www.", "http://a" + "@" * 3, "a" * 63 + "@"]
)
def test_scanning_stays_linear(unit: str) -> None:
    assert scans_linearly(without_links, unit, 20_000)
