"""A big log's streaming sink: its head, a ring of its last lines (at least TAIL of them, and as
many more as the budget could show), the first occurrence of every error or warning template
with its count, the end of every traceback, and the lines naming the task."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ctxguard.kinds.base import Facts, Probe
from ctxguard.kinds.log.failures import Blocks, error_key, first_bare_cause
from ctxguard.kinds.log.lines import (
    Lines,
    is_important,
    passing,
    says,
    strip_ansi,
    template,
    unstamped,
    wrapped_rule,
)
from ctxguard.kinds.log.model import EDGE
from ctxguard.kinds.log.plan import (
    EDGES,
    ENDS,
    ERROR,
    LATER,
    MARKED,
    NAMED,
    QUIET,
    REST,
    STAMPS_LEFT_OUT,
    TRACE,
    end_level,
    goes_on,
    named_again,
    occurrences,
    template_level,
)
from ctxguard.kinds.sink import ROOM_BYTES_PER_TOKEN, Offered, Sink, offer
from ctxguard.kinds.sink import clip_streamed as _clip
from ctxguard.options import Options
from ctxguard.plan import filled
from ctxguard.record import Listed
from ctxguard.tokens.base import Tokenizer
from ctxguard.words import mentions, task_words

TAIL = 2000  # last lines kept for the cut, at least, and as many more as ROOM_BYTES_PER_TOKEN allows
MAX_TEMPLATES = 5000  # distinct error/warning templates tracked (and lines naming the task)


@dataclass
class _Seen:
    """The first line of one error template, and how often the template occurs."""

    number: int
    text: str
    goes_on: bool  # (a pytest `E` line after another)
    count: int = 1
    wrapped: str | None = None  # the rule named at the end of the next line, where the message wraps


class LogSink(Sink):
    """Logs and other text: head, tail, error templates, traceback ends."""

    def __init__(self, tokenizer: Tokenizer, budget: int = 0, options: Options = Options(), log: bool = False) -> None:
        self.tokenizer = tokenizer
        self.log = log  # a log's ends are ranked as its plan ranks them; other text's come first
        self.says: Callable[[str], bool] = says if log else filled  # a line that may be an end (ctxguard.plan.ends)
        self.head_budget = budget if options.tier3 == "head" else 0  # tier3 head: keep head lines while they fit
        self.head_tokens = 0
        self.first: tuple[int, str] | None = None
        self.head: list[tuple[int, str]] = []
        # The end, from where a cut that fills its budget takes the rest: bounded by the budget.
        self.tail: deque[tuple[int, str]] = deque()
        self.tail_room = budget * ROOM_BYTES_PER_TOKEN
        self.tail_bytes = 0
        self.task = task_words(options.task)
        self.tasked: list[tuple[int, str]] = []
        self.recent: deque[tuple[int, str]] = deque(maxlen=5)
        self.templates: dict[str, _Seen] = {}
        self.traces: dict[int, str] = {}
        self.untracked = 0
        self.blocks = Blocks(most=MAX_TEMPLATES)  # pytest's failure blocks: each one's first `E` line
        self.opened: _Seen | None = None  # the template the line before opened (its message may wrap)
        self.reader = Lines()
        self.stamped = False  # a line had a CI runner's timestamp (left out of what is shown)

    def take(self, number: int, line: str) -> None:
        plain = strip_ansi(line)
        shown = unstamped(plain)  # (as the plan shows it: without a CI runner's timestamp)
        self.stamped = self.stamped or shown is not plain
        if self.first is None and self.says(shown):
            self.first = (number, shown)
        if self.head_budget:
            if self.head_tokens <= self.head_budget:
                self.head_tokens += self.tokenizer.count(shown)
                self.head.append((number, shown))
        elif len(self.head) < EDGE:
            self.head.append((number, shown))
        self.tail.append((number, shown))
        self.tail_bytes += len(shown)
        while len(self.tail) > TAIL and self.tail_bytes > self.tail_room:
            self.tail_bytes -= len(self.tail.popleft()[1])
        if self.task and len(self.tasked) < MAX_TEMPLATES and mentions(shown, self.task):
            self.tasked.append((number, shown))
        self.recent.append((number, shown))
        kind = self.reader.kind(shown)
        self.blocks.take(shown)
        if self.opened is not None:  # (as the plan reads a rule: ctxguard.kinds.log.plan's _rule)
            self.opened.wrapped = wrapped_rule(self.opened.text, shown)
            self.opened = None
        if kind == "end" and len(self.traces) < 4 * MAX_TEMPLATES:
            self.traces.update(self.recent)  # the traceback's last lines
        if kind in ("end", "error"):
            key = error_key(shown)  # (as the plan keys it)
            seen = self.templates.get(key)
            if seen is not None:
                seen.count += 1
            elif len(self.templates) < MAX_TEMPLATES:
                self.templates[key] = self.opened = _Seen(
                    number, shown, goes_on(shown, self.recent[-2][1] if len(self.recent) > 1 else None)
                )
            else:
                self.untracked += 1

    def offered(self, lines: int, mode: str) -> Offered:
        out: Offered = {}
        if mode == "head":
            for number, text in self.head:
                offer(out, number, ENDS, number, text)
            return out
        last = lines - 1
        for number, text in self.tail:  # (passing tests and progress lines after the rest, as planned)
            offer(out, number, QUIET if passing(text) else REST, last - number, text)
        for number, text in self.head:
            offer(out, number, QUIET if passing(text) else EDGES, number, text)
        for number, text in list(self.tail)[-EDGE:]:
            offer(out, number, EDGES, last - number, text)
        for number, text in self.traces.items():
            offer(out, number, TRACE, number, text)
        for number, text in self.tasked:
            offer(out, number, MARKED, number, text)
        again = named_again((seen.number, seen.text) for seen in self.templates.values())
        levels = {
            key: LATER if seen.number in again else template_level(seen.text, seen.goes_on, seen.wrapped)
            for key, seen in self.templates.items()
        }
        # As the plan ranks them: the names nearest the run's summary first, at twice their
        # distance from the end (room for a cause right after one).
        named = {key: 2 * (last - seen.number) for key, seen in self.templates.items() if levels[key] == NAMED}
        after = self._first_cause(named, levels)
        for key, seen in self.templates.items():
            line = occurrences(_clip(seen.text), seen.count)
            if key == after[0]:
                offer(out, seen.number, NAMED, after[1], seen.text, shown=line)
            else:
                offer(out, seen.number, levels[key], named.get(key, seen.number), seen.text, shown=line)
        if self.first is not None:
            offer(out, self.first[0], end_level(True, False) if self.log else ENDS, 0, self.first[1])
        last_filled = self._last()
        if last_filled is not None:
            number, text = last_filled
            error = is_important(text) and template_level(text) <= ERROR
            offer(out, number, end_level(False, error, text) if self.log else ENDS, 1, text)
        return out

    def _first_cause(self, named: dict[str, int], levels: dict[str, float]) -> tuple[str | None, int]:
        """The key of the error line of the first bare-named failed test taken, and its rank:
        right after the name (see ctxguard.kinds.log.plan's _names_and_cause)."""
        order = sorted(named, key=named.__getitem__)
        found = first_bare_cause([self.templates[key].text for key in order], lambda: self.blocks)
        key = error_key(found[1]) if found is not None else None
        if found is None or key not in self.templates or levels[key] <= NAMED:
            return None, 0
        return key, named[order[found[0]]] + 1

    def _last(self) -> tuple[int, str] | None:
        return next(((n, t) for n, t in reversed(self.tail) if self.says(t)), None)

    def probes(self) -> list[Probe]:
        found = [Probe("first", self.first[1].strip())] if self.first else []
        last = self._last()
        if last is not None:
            found.append(Probe("last", last[1].strip()))
        keys = dict.fromkeys(template(seen.text) for seen in self.templates.values())  # (a named failure: its template)
        return found + [Probe("template", key) for key in keys]

    def notes(self) -> list[str]:
        said = [STAMPS_LEFT_OUT] if self.stamped else []
        if self.untracked:
            said.append(f"{self.untracked} error lines beyond {MAX_TEMPLATES} distinct templates not tracked")
        return said

    def close(self) -> None:
        pass

    def prefix(self, room: int, tokenizer: Tokenizer, mode: str) -> str:
        return ""

    def files(self) -> tuple[Listed, ...] | None:
        return None

    def facts(self) -> Facts:
        """The digest's error lines: each template's first line with its count."""
        return Facts(errors=tuple((seen.text, seen.count) for seen in self.templates.values()))
