"""Open defects the fuzz targets and the growth tests find, being fixed under issue #7
(section 2). The one place a finding is tolerated: every entry names its issue, and must be
deleted with the fix (the CI driver fails on an entry whose reproducers no longer reproduce
it; a growth test listed here is a strict xfail, so it fails once it passes). The goal is two
empty lists.
"""

from __future__ import annotations

import dataclasses
import re

from tests.fuzz.harness import Finding


@dataclasses.dataclass(frozen=True)
class KnownIssue:
    issue: str
    target: str
    kind: str
    """A regular expression the finding's kind must match whole."""
    detail: str
    """A regular expression searched in the finding's detail."""
    summary: str

    def matches(self, target: str, finding: Finding) -> bool:
        return (target == self.target and re.fullmatch(self.kind, finding.kind) is not None
                and re.search(self.detail, finding.detail) is not None)


KNOWN: list[KnownIssue] = []


def known(target: str, finding: Finding) -> KnownIssue | None:
    """The entry of :data:`KNOWN` that ``finding`` (of ``target``) is, if any."""
    return next((k for k in KNOWN if k.matches(target, finding)), None)


KNOWN_GROWTH: dict[str, str] = {}
"""Growth tests (by pytest node name) that fail until the named defect is fixed."""
