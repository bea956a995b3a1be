"""Structured JSON logs with request ids; phone numbers, e-mails, card and ID numbers are redacted."""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)

# Digit runs are bounded by "not a digit" rather than \b: in Chinese text a number sits between CJK
# characters, which are word characters, so \b would never match there. Order matters: the most specific
# patterns first, so an ID number is not half-eaten as a phone number.
_REDACTIONS = (
    (re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"), "<email>"),
    (re.compile(r"(?<![0-9])[1-9][0-9]{16}[0-9Xx](?![0-9])"), "<id>"),  # PRC resident ID (18 characters)
    (re.compile(r"(?<![0-9])(?:\+?86[ -]?)?1[3-9][0-9](?:[ -]?[0-9]){8}(?![0-9])"), "<phone>"),  # PRC mobile
    (re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])"), "<card>"),  # bank cards, 13-19 digits
    (re.compile(r"(?<![0-9])[1-9][0-9]{14}(?![0-9])"), "<id>"),  # 15-digit (first-generation) ID
    (re.compile(r"(?<![0-9A-Za-z])\+?\(?[0-9][0-9 ()-]{6,16}[0-9](?![0-9])"), "<phone>"),  # other phones
)


# Chinese input methods often type full-width digits ("１３８..."), which the ASCII patterns would miss; they
# are read as ASCII first (a redacted text is for logs and labelling, where the change is harmless).
_FULLWIDTH = str.maketrans("０１２３４５６７８９＋＠", "0123456789+@")
# Every pattern above needs an "@" or a run of digits, spaces, brackets and hyphens that starts and ends with
# a digit and is at least 8 long (and the replacements add no digits): a line without one is left as it is
# without running the six patterns (half the cost of a log line).
_CANDIDATE = re.compile(r"@|[0-9][0-9 ()-]{6,}[0-9]")


def redact(text: str) -> str:
    ascii_digits = text.translate(_FULLWIDTH)
    if _CANDIDATE.search(ascii_digits) is None:
        return text
    text = ascii_digits
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        request_id = request_id_var.get()
        if request_id:
            entry["request_id"] = request_id
        if record.exc_info:
            entry["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        request_id = request_id_var.get()
        prefix = f"[{request_id}] " if request_id else ""
        # Only the message is redacted: the timestamp's digits would otherwise read as a phone number.
        message = redact(record.getMessage())
        return f"{self.formatTime(record)} {record.levelname} {record.name}: {prefix}{message}"


def configure_logging(level: str = "INFO", json_format: bool = True) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if json_format else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # transformers' CB logger is chatty at INFO (one line per cache allocation and stop)
    logging.getLogger("ContinuousBatchingLogger").setLevel(max(logging.WARNING, root.level))
