"""The one redaction function: every message, record and table the runner writes or prints passes here.

A secret (the API key, a key in the base URL's query) can come back from a server in many forms: as
sent, percent-encoded (upper or lower case hex, ``+`` or ``%20`` for a space, some characters encoded
and others not, as each HTTP library chooses), JSON-escaped (``\\/``, ``\\u00e9``), or cut short by
whoever echoed it (``Incorrect API key provided: sk-abc…``). :func:`redact` removes every one of
them: any run of characters that spells, character by character in any of those forms, the secret
or a prefix of it at least :data:`MIN_PREFIX` characters long. Redaction comes before any cutting
(:func:`clip`), so a cut can never leave a piece of a secret behind.

Every secret's spans are found on the text as given and merged before anything is replaced: masking one key first
would hide a shared head (``sk-proj-``) from the next key's search and leave the rest of that key in the output.

Secrets are remembered for the life of the process (:func:`remember`), so output printed far from
the transport (the command line's error line, the final table) is redacted with the same list.
Secrets shorter than :data:`MIN_SECRET` characters are not redacted: they protect nothing, and
removing every ``ab`` from the output would make it unreadable.

**The redaction set.** Beside the keys a run is given, every output redacts the values of the key variables
:func:`key_variables` names: the standard ones (:data:`STANDARD_KEY_VARIABLES`, whatever a header says) and every
variable any endpoint of a run names in its header (``api_key_env``, ``judge_api_key_env``, any ``*api_key_env``).
A run file's header is written by whoever wrote the file, so a variable it names is redacted only when its value
could be a key (:func:`could_be_key`): ``"api_key_env": "HOME"`` neither switches off the standard ones nor
makes every path under ``/home/me`` in a page a row of ``***``. Every new run's header names the key variable of
each endpoint it connects (:func:`eqbench_nb.runner.session.naming_every_key_variable`), whatever its benchmark.
A key given where a variable's name goes is refused without being printed (:func:`refuse_key_as_name`).
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import RunnerError

#: The shortest prefix of a secret that is redacted (shorter pieces give nothing away).
MIN_PREFIX = 8
#: Secrets shorter than this are not redacted at all.
MIN_SECRET = 4
MASK = "***"
#: C0 and C1 control characters (ANSI escapes start with ESC), except none: a printed line has none.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")

_remembered: list[str] = []
_lock = threading.Lock()


def remember(*secrets: str | None) -> None:
    """Redact these secrets from everything :func:`redact` sees from now on (in this process)."""
    with _lock:
        for secret in secrets:
            if secret and len(secret) >= MIN_SECRET and secret not in _remembered:
                _remembered.append(secret)


def remembered() -> tuple[str, ...]:
    return tuple(_remembered)


def _char_forms(char: str) -> tuple[str, ...]:
    """Every way one character of a secret may be written back: itself, percent-encoded (any hex case),
    ``+`` for a space, JSON-escaped. Longest first, so the longest form wins."""
    forms = {char}
    encoded = char.encode("utf-8", "surrogatepass")
    forms.add("".join(f"%{b:02X}" for b in encoded))
    forms.add("".join(f"%{b:02x}" for b in encoded))
    if char == " ":
        forms.add("+")
    escaped = json.dumps(char)[1:-1]
    forms.add(escaped)
    if char == "/":
        forms.add("\\/")
    if ord(char) > 0x7E:
        forms.add(f"\\u{ord(char):04x}")
        forms.add(f"\\u{ord(char):04X}")
    return tuple(sorted(forms, key=len, reverse=True))


@functools.lru_cache(maxsize=64)
def _matcher(secret: str) -> tuple[re.Pattern[str], tuple[tuple[str, ...], ...]]:
    """(a pattern for the secret's first MIN_PREFIX characters in any form, every character's forms)."""
    forms = tuple(_char_forms(c) for c in secret)
    head = "".join("(?:" + "|".join(map(re.escape, f)) + ")" for f in forms[:MIN_PREFIX])
    return re.compile(head), forms


def _longest_from(text: str, start: int, forms: tuple[tuple[str, ...], ...]) -> int:
    """Where the longest prefix of the secret (character by character in any of its forms) written at ``start``
    ends. Every way of reading the text is followed, not the first form that fits: a character whose forms begin
    alike (``%`` is itself and the start of ``%25``) cannot end the match early."""
    reached, end = {start}, start
    for i, char_forms in enumerate(forms):
        reached = {at + len(f) for at in reached for f in char_forms if text.startswith(f, at)}
        if not reached:
            break
        if i + 1 >= min(MIN_PREFIX, len(forms)):
            end = max(reached)
    return end


def _spans(text: str, secret: str) -> list[tuple[int, int]]:
    """Where the secret, or a prefix of it of MIN_PREFIX characters or more, is written in ``text``: from every
    place such a prefix starts, overlapping ones too (in ``ababab…`` a key's match may start two characters on)."""
    head, forms = _matcher(secret)
    spans = []
    found = head.search(text)
    while found is not None:  # the next search starts one character on, not past the match: matches may overlap
        spans.append((found.start(), _longest_from(text, found.start(), forms)))
        found = head.search(text, found.start() + 1)
    return spans


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans, overlapping or touching ones joined, in order."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def redact(text: object, secrets: str | Iterable[str | None] | None = None) -> str:
    """The text with every secret (``secrets`` and those remembered), in any form, replaced by ``***``.

    Every secret's spans are found on the text as given, then merged and replaced once: masking one secret before
    looking for the next would let a masked shared prefix (every OpenAI project key starts ``sk-proj-``) hide the
    rest of another key."""
    text = str(text)
    if isinstance(secrets, str):
        secrets = (secrets,)
    every = {s for s in (*(secrets or ()), *_remembered) if s and len(s) >= MIN_SECRET}
    spans = _merged(span for secret in every for span in _spans(text, secret))
    if not spans:
        return text
    out, last = [], 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(MASK)
        last = end
    out.append(text[last:])
    return "".join(out)


def clip(text: object, limit: int = 200, secrets: str | Iterable[str | None] | None = None) -> str:
    """One printable line of at most ``limit`` characters: redacted first, then whitespace collapsed,
    control characters escaped, and cut."""
    line = printable(" ".join(redact(text, secrets).split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


def printable(text: str) -> str:
    """Text safe to print on a terminal: control characters (an ANSI escape clears a screen) and lone
    surrogates written as escapes; line breaks kept."""
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return _CONTROL.sub(lambda m: "\n" if m.group() == "\n" else f"\\x{ord(m.group()):02x}", text)


def output(text: object) -> str:
    """What the command line prints: redacted, control characters escaped (line breaks kept)."""
    return printable(redact(text))


def without_surrogates(text: str) -> tuple[str, int]:
    """(the text with each lone surrogate replaced by U+FFFD, how many there were): UTF-8 cannot store one."""
    return _SURROGATE.subn("\ufffd", text)


def clean_json(value: Any, secrets: str | Iterable[str | None] | None = None) -> Any:
    """A JSON value with every string (keys too) redacted and freed of lone surrogates, for a file."""
    if isinstance(value, str):
        if _SURROGATE.search(value):
            value = _SURROGATE.sub("\ufffd", value)
        return redact(value, secrets) if (secrets or _remembered) else value
    if isinstance(value, dict):
        return {clean_json(k, secrets): clean_json(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_json(v, secrets) for v in value]
    return value


#: Variables whose values are redacted from every output whatever a run file's header says: the key variables of
#: the OpenAI-compatible providers a run is commonly pointed at.
STANDARD_KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "MISTRAL_API_KEY",
    "TOGETHER_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "FIREWORKS_API_KEY",
    "XAI_API_KEY",
    "HF_TOKEN",
)
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def key_variables(*headers: Any) -> list[str]:
    """The standard key variables, then every variable a header names for a key (a field ending in
    ``api_key_env``: the model's, the judge's, any other endpoint's, and those of a list of endpoints such as a
    judge panel's entries), each once."""
    names = list(STANDARD_KEY_VARIABLES)
    for header in headers:
        if not isinstance(header, Mapping):  # a run's RunHeader, or a header line as read
            continue
        fields = list(header.items())
        for value in header.values():  # one level down: a list of endpoints (a judge panel)
            fields += (
                [kv for item in value if isinstance(item, dict) for kv in item.items()]
                if isinstance(value, list)
                else []
            )
        for field, value in fields:
            if str(field).endswith("api_key_env") and isinstance(value, str) and _VARIABLE_NAME.fullmatch(value):
                names.append(value)
    return list(dict.fromkeys(names))


def could_be_key(value: str) -> bool:
    """Whether a variable's value could be an API key: one token an HTTP header can carry (printable ASCII, no
    space), of :data:`MIN_PREFIX` characters or more, and not a path (``$HOME``, ``$SHELL``, ``$PATH``)."""
    if len(value) < MIN_PREFIX or not all(0x21 <= ord(c) <= 0x7E for c in value):
        return False
    return not (os.path.isabs(value) or value.startswith("~"))


#: How providers' keys begin, before their random part: a key variable's *name* that begins so and goes on for 16
#: characters or more is a key pasted where its variable's name goes.
KEY_PREFIXES = (
    "sk-", "sk_", "gsk_", "xai-", "hf_", "pk_", "rk_", "r8_", "ghp_", "gho_", "ghs_", "github_pat_", "glpat-",
    "nvapi-", "pplx-", "fw_", "csk-", "AIza", "AKIA", "ASIA",
)  # fmt: skip


def looks_like_key(name: str) -> bool:
    """Whether a key variable's name (``--api-key-env``, ``api_key_env`` in a ``--judges`` file) is a key itself: it
    begins as providers' keys do (:data:`KEY_PREFIXES`) and goes on for 16 characters or more, or a run of it between
    underscores is random-looking (20 characters or more mixing upper case, lower case and digits, or with 4 digits
    and 4 letters; or 32 characters or more of anything). Variables are named in words (``GROQ_API_KEY``,
    ``my_judge_key_2``); a key is one long random token."""
    if any(name.startswith(p) and len(name) - len(p) >= 16 for p in KEY_PREFIXES):
        return True
    for run in re.split(r"[_\-]+", name):
        digits, letters = sum(c.isdigit() for c in run), sum(c.isalpha() for c in run)
        mixed = any(c.islower() for c in run) and any(c.isupper() for c in run) and digits > 0
        if len(run) >= 32 or (len(run) >= 20 and (mixed or (digits >= 4 and letters >= 4))):
            return True
    return False


#: Where a key variable's name is given, for a refusal that cannot say which (the value is never printed).
KEY_NAME_OPTIONS = "the key variable's name (--api-key-env, --judge-api-key-env or a --judges file's api_key_env)"


def refuse_key_as_name(name: str | None, where: str) -> None:
    """A :class:`~eqbench_nb.runner.errors.RunnerError` (one line, the value not in it) when a key variable's name
    :func:`looks_like_key`; the value is remembered for redaction first, so no later output can show it either."""
    if name and looks_like_key(name):
        remember(name)
        raise RunnerError(
            f"{where} looks like an API key itself, not the name of the environment variable holding one (it is not "
            "printed): put the key in a variable (export MY_KEY=...) and give that variable's name"
        )


def key_values(*headers: Any) -> list[str]:
    """The values of :func:`key_variables` in this environment: a standard variable's whatever it looks like, a
    header-named one's only when it :func:`could_be_key`."""
    out = []
    for name in key_variables(*headers):
        value = os.environ.get(name)
        if value and (name in STANDARD_KEY_VARIABLES or could_be_key(value)):
            out.append(value)
    return out


def remember_key_variables(*headers: Any) -> None:
    """Redact :func:`key_values` from everything from now on: the command line calls it once, and each run file's
    header read adds the variables it names."""
    remember(*key_values(*headers))
