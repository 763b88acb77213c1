"""Deterministic generators of realistic artifacts of a chosen token size, for tests."""

from __future__ import annotations

import random

from ctxguard.tokens.load import get_tokenizer

_SERVICES = ("api", "worker", "scheduler", "billing", "auth")


def log_of(tokens: int, seed: int = 1) -> str:
    """A service log of about `tokens` tokens, with a few warnings and one traceback."""
    rng = random.Random(seed)
    lines: list[str] = []
    count = get_tokenizer().count
    size = 0
    i = 0
    while size < tokens:
        i += 1
        service = rng.choice(_SERVICES)
        if i % 97 == 0:
            line = f"2024-05-01 10:{i // 60 % 60:02d}:{i % 60:02d} WARNING {service} slow response {rng.randint(900, 5000)}ms for /v1/items/{rng.randint(1, 99999)}"
        else:
            line = f"2024-05-01 10:{i // 60 % 60:02d}:{i % 60:02d} INFO {service} handled request id={rng.randint(10**6, 10**7)} status=200 in {rng.randint(1, 90)}ms"
        lines.append(line)
        if i == 30:
            lines += [
                "2024-05-01 10:02:30 ERROR worker job 42 failed",
                "Traceback (most recent call last):",
                '  File "/app/jobs.py", line 12, in run',
                "    total = compute(batch)",
                "ZeroDivisionError: division by zero",
            ]
        size += count(line) + 1
    text = "\n".join(lines) + "\n"
    return _trim(text, tokens)


def prose_of(tokens: int, seed: int = 2) -> str:
    """Plain paragraphs of about `tokens` tokens."""
    rng = random.Random(seed)
    words = "the review agent reads each artifact and decides whether the change is safe to merge".split()
    paragraphs = []
    text = ""
    while get_tokenizer().count(text) < tokens:
        paragraphs.append(" ".join(rng.choice(words) for _ in range(80)) + ".")
        text = "\n\n".join(paragraphs) + "\n"
    return _trim(text, tokens)


def _trim(text: str, tokens: int) -> str:
    """Cut whole lines off the end until the text is at most `tokens` tokens."""
    count = get_tokenizer().count
    lines = text.splitlines(keepends=True)
    while count("".join(lines)) > tokens and lines:
        over = count("".join(lines)) - tokens
        del lines[-max(1, over // 40) :]
    return "".join(lines)
