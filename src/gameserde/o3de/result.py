"""Result codes and results as O3DE's ``JsonSerializationResult`` has them.

A :class:`ResultCode` packs a task, a processing state and an outcome into one ``uint32``
(``task | processing << 8 | outcome << 16``); :meth:`ResultCode.combine` keeps the operand with
the larger packed value and then applies O3DE's three special merges. A :class:`Result` is what
:func:`~gameserde.o3de.store` and :func:`~gameserde.o3de.load` return besides the value: the
combined code and every issue reported on the way, with its JSON path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

__all__ = ["Issue", "Outcomes", "Processing", "Reporter", "Result", "ResultCode", "Tasks"]


class Tasks(IntEnum):
    """What was being done when a code was produced."""

    RetrieveInfo = 1
    CreateDefault = 2
    Convert = 3
    Clear = 4
    ReadField = 5
    WriteValue = 6
    Merge = 7
    CreatePatch = 8
    Import = 9


class Processing(IntEnum):
    """How far the work went."""

    Completed = 1
    Altered = 2
    PartialAlter = 3
    Halted = 4


class Outcomes(IntEnum):
    """What came of the work, from best to worst."""

    Success = 1
    Skipped = 2
    PartialSkip = 3
    DefaultsUsed = 4
    PartialDefaults = 5
    Unavailable = 6
    Unsupported = 7
    TypeMismatch = 8
    TestFailed = 9
    Missing = 10
    Invalid = 11
    Unknown = 12
    Catastrophic = 13


def _processing_of(outcome: Outcomes) -> Processing:
    if outcome <= Outcomes.PartialDefaults:
        return Processing.Completed
    if outcome <= Outcomes.Unsupported:
        return Processing.Altered
    return Processing.Halted


@dataclass(frozen=True, slots=True)
class ResultCode:
    """One packed result code. ``outcome``/``processing`` 0 means "no work done yet" (a code
    made from a task alone); :attr:`outcome` and :attr:`processing` then read back as
    DefaultsUsed and Completed, as O3DE's getters do."""

    packed: int

    @classmethod
    def of(cls, task: Tasks, outcome: Outcomes) -> ResultCode:
        """``ResultCode(task, outcome)``: the processing follows from the outcome."""
        key = (task, outcome)
        code = _CODES.get(key)
        if code is None:
            code = cls(int(task) | int(_processing_of(outcome)) << 8 | int(outcome) << 16)
            _CODES[key] = code
        return code

    @classmethod
    def task_only(cls, task: Tasks) -> ResultCode:
        """``ResultCode(task)``: no processing and no outcome yet."""
        return cls(int(task))

    @property
    def task(self) -> Tasks:
        return Tasks(self.packed & 0xFF)

    @property
    def processing(self) -> Processing:
        raw = (self.packed >> 8) & 0xFF
        return Processing(raw) if raw else Processing.Completed

    @property
    def outcome(self) -> Outcomes:
        raw = self.packed >> 16
        return Outcomes(raw) if raw else Outcomes.DefaultsUsed

    @property
    def has_done_work(self) -> bool:
        """``HasDoneWork()``: whether an outcome has been set."""
        return self.packed >> 16 != 0

    @property
    def halted(self) -> bool:
        return (self.packed >> 8) & 0xFF == 4

    @property
    def altered(self) -> bool:
        """Processing is Altered (the value was left as it was)."""
        return (self.packed >> 8) & 0xFF == 2

    @property
    def completed(self) -> bool:
        """Processing is Completed (or not set yet)."""
        return (self.packed >> 8) & 0xFF in (0, 1)

    def combine(self, other: ResultCode) -> ResultCode:
        """``ResultCode::Combine``: the larger packed code, then Success+DefaultsUsed becomes
        PartialDefaults, Success+Skipped becomes PartialSkip and Completed+Altered becomes
        PartialAlter (only for outcomes and processings actually set)."""
        a, b = self.packed, other.packed
        result = a if a >= b else b
        outcomes = (a >> 16) * (b >> 16)
        if outcomes == 4 and a >> 16 != 2:  # Success (1) and DefaultsUsed (4)
            result = (result & 0xFFFF) | 5 << 16  # PartialDefaults
        elif outcomes == 2:  # Success (1) and Skipped (2)
            result = (result & 0xFFFF) | 3 << 16  # PartialSkip
        if ((a >> 8) & 0xFF) * ((b >> 8) & 0xFF) == 2:  # Completed (1) and Altered (2)
            result = (result & ~0xFF00) | 3 << 8  # PartialAlter
        if result == a:
            return self
        return other if result == b else ResultCode(result)

    def __repr__(self) -> str:
        if not self.has_done_work:
            return f"ResultCode({self.task.name})"
        return f"ResultCode({self.task.name}, {self.processing.name}, {self.outcome.name})"


_CODES: dict[tuple[Tasks, Outcomes], ResultCode] = {}


@dataclass(frozen=True, slots=True)
class Issue:
    """One report: where (a JSON Pointer on load, a dotted path on store), the code the
    reporter returned, and the message."""

    path: str
    code: ResultCode
    message: str


Reporter = Callable[[str, ResultCode, str], ResultCode]
"""``reporter(message, code, path) -> code``: called for every report; the code it returns is
the one used from there on, so a reporter can turn an error into a success or the reverse."""


@dataclass(slots=True)
class Result:
    """The outcome of a whole store or load: the combined code and every issue reported
    (every report whose outcome is not Success, DefaultsUsed or PartialDefaults)."""

    code: ResultCode
    issues: list[Issue] = field(default_factory=list)

    @property
    def task(self) -> Tasks:
        return self.code.task

    @property
    def processing(self) -> Processing:
        return self.code.processing

    @property
    def outcome(self) -> Outcomes:
        return self.code.outcome

    @property
    def ok(self) -> bool:
        """Whether O3DE's ``LoadObjectFrom*`` helpers would accept the load: every issue
        reported is Success, DefaultsUsed or PartialDefaults, and nothing halted."""
        return not self.code.halted and not self.issues

    def __repr__(self) -> str:
        return f"Result({self.code!r}, {len(self.issues)} issue(s))"
