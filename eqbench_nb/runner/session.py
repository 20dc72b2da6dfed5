"""What every benchmark's run does around its items, in one place: connect, run the items, stop cleanly.

A benchmark's ``task`` checks its own options, then hands :func:`run_plan` its checked
:class:`~eqbench_nb.runner.settings.Endpoint` and a function that builds its :class:`RunPlan` once the endpoint is
connected (:func:`connect`: the bundled model started, or the endpoint's key, reachability and served model). The
plan names the run file (its path, header and record format), the jobs still to do (from the records the file
already holds) and how to solve one. :func:`execute` then runs them: the run file opened (lock, resume), the
progress bar, the rate limiter, the client, the transport (one request at a time with retries, or OpenAI's Batch
API), every record appended and fsynced as it finishes, and a clean stop on any error, Ctrl-C or SIGTERM
(:func:`reported_interrupt`). Every benchmark runs through here, so a fix (a cap, a redaction, a message) reaches
them all.

A job's ``solve`` is a coroutine that returns one record, or an async generator that yields several (a
conversation's turns): each yielded record is written at once, so a killed run resumes at the first unwritten one.

A run may talk to a **second endpoint** (a judge): :func:`run_plan` connects it too (the bundled model is shared
when neither names a base URL), and :func:`execute` gives it a transport of its own (its key, pacing, retry budget,
and the deviations it teaches, recorded in the run file under its label); ``solver`` then receives both transports.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar, cast

from ..output_paths import same_file
from .batch import BatchTransport, answer_all_batched, unsettled_batches
from .endpoint import (
    check_model_listed,
    check_reachable,
    discover_model,
    lists_what_it_serves,
    make_client,
    plain_http_warning,
    public_endpoint,
    resolve_api_key,
    served_models,
    split_base_url,
)
from .errors import RunnerError
from .header import CommonFields, RunHeader
from .loop import Terminated, run_coroutine
from .pool import Parking, Progress, Summary, answer_all
from .ratelimit import AdaptiveLimiter
from .reasoning import DEVIATIONS, ParameterAdapter
from .redact import clip, key_variables, remember
from .runfile import RunFile, deviations_key, display_path
from .settings import DEFAULT_CONCURRENCY, LOCAL_CONCURRENCY, Endpoint, RunSettings
from .transport import MAX_BODY_BYTES, Transport, TransportStats

J = TypeVar("J")
R = TypeVar("R")
S = TypeVar("S")
#: Cap on a batch's output file (a 10-iteration run's is a few MB; the cap stops a runaway server)
BATCH_FILE_BYTES = 512 * 2**20
#: Longest model or run name kept whole in a file name (a file name is at most 255 bytes).
MAX_NAME_CHARS = 100


def sanitise(name: str) -> str:
    """A model or run name safe as part of a file name. A name that is cut (over
    :data:`MAX_NAME_CHARS`) or has nothing left (``.``, ``..``) ends with a hash of the whole name, so
    two names never share a file; the header keeps the name as given."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    if safe and len(safe) <= MAX_NAME_CHARS:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{safe[: MAX_NAME_CHARS - 13]}-{digest}" if safe else f"id-{digest}"


def url_secrets(endpoint: Endpoint) -> list[str]:
    """The credentials in the endpoint's base URL query (``?api-key=...``), remembered for redaction from here on
    (call it before anything that may print the URL); a base URL with a user name or password is refused."""
    secrets = split_base_url(endpoint.base_url)[2] if endpoint.base_url is not None else []
    remember(*secrets)
    return secrets


@dataclass(frozen=True)
class Connection:
    """Where a run's requests go: ``base_url`` (may carry query keys), ``endpoint`` (what may be shown
    and recorded), the model, the key, the concurrency in force, whether it is the bundled model, and the
    base URL's secrets (redacted everywhere)."""

    base_url: str
    endpoint: str
    model: str
    api_key: str
    concurrency: int
    local: bool
    secrets: list[str] = field(default_factory=list)

    @property
    def named(self) -> str:
        """The endpoint as a message names it: the bundled model by its name (its port is thrown away)."""
        return f"the bundled {self.model}" if self.local else self.endpoint

    def common_fields(self, run_id: str, endpoint: Endpoint, settings: RunSettings, **fields: Any) -> CommonFields:
        """A new run's common header fields as this connection sets them (model, endpoint, bundled or not,
        concurrency), the timeout of the ``endpoint`` it was made from, the seed of ``settings``, and the benchmark's
        own ``fields`` (benchmark, iterations, upstream, ...)."""
        return CommonFields(
            model=self.model,
            run_id=run_id,
            endpoint=self.endpoint,
            local_model=self.local,
            concurrency=self.concurrency,
            timeout_s=endpoint.timeout,
            seed=settings.seed,
            **fields,
        )


def connect(stack: ExitStack, endpoint: Endpoint, repeatable: bool = False) -> Connection:
    """The endpoint a run talks to, checked before any item is asked: without a base URL the bundled model,
    started on 127.0.0.1 and stopped when ``stack`` closes (``repeatable``, a seeded run: with one thread count
    throughout, :class:`~eqbench_nb.runner.local_model.LocalServer`); else the key (from the environment), a warning
    for a key over plain http, reachability, and the served model when none is named."""
    secrets = url_secrets(endpoint)
    base_url, model, concurrency = endpoint.base_url, endpoint.model, endpoint.concurrency
    local = base_url is None
    if local and endpoint.batch:  # refused before anything is asked, not after the model under test's answers
        raise RunnerError(
            "the bundled model has no Batch API: give the endpoint's base URL (--base-url, --judge-base-url) or drop "
            "--batch / --judge-batch"
        )
    if base_url is None:
        from .local_model import MODEL_NAME, LocalModelError, LocalServer

        if model not in (None, MODEL_NAME):
            raise RunnerError(f"without --base-url the bundled {MODEL_NAME} is used; drop --model {model!r}")
        model, concurrency = MODEL_NAME, concurrency or LOCAL_CONCURRENCY
        try:
            base_url = stack.enter_context(LocalServer(n_parallel=concurrency, repeatable=repeatable))
        except LocalModelError as exc:
            raise RunnerError(str(exc)) from None
    concurrency = concurrency or DEFAULT_CONCURRENCY
    public = public_endpoint(base_url)
    key_env = endpoint.api_key_env
    api_key = resolve_api_key(key_env, base_url)
    warning = plain_http_warning(base_url, bool(os.environ.get(key_env or "OPENAI_API_KEY")) or bool(secrets))
    if warning:
        print(warning, file=sys.stderr)
    check_reachable(base_url, endpoint.timeout)
    if model is None:
        url, timeout = base_url, endpoint.timeout
        model = run_coroutine(lambda: discover_model(url, public, api_key, timeout))
    elif not local and lists_what_it_serves(base_url):
        url, timeout = base_url, endpoint.timeout
        listed = run_coroutine(lambda: served_models(url, api_key, timeout))
        check_model_listed(model, listed, public, [api_key, *secrets])
    return Connection(base_url, public, model, api_key, concurrency, local, secrets)


@dataclass(frozen=True)
class Second:
    """A second endpoint a run talks to: its ``label`` (how messages and the run file name it: ``"judge"``), the
    :class:`Endpoint` it was given and its :class:`Connection`."""

    label: str
    endpoint: Endpoint
    connection: Connection


def connect_second(stack: ExitStack, label: str, endpoint: Endpoint, first: Connection) -> Second:
    """Connect a second endpoint (:func:`connect`); without a base URL, while the first is the bundled model too,
    the same server is used (one model, one server)."""
    if endpoint.base_url is None and endpoint.batch:
        raise RunnerError(
            f"the bundled model has no Batch API: give the {label}'s base URL (--judge-base-url) or drop --judge-batch"
        )
    if endpoint.base_url is None and first.local:
        from .local_model import MODEL_NAME

        if endpoint.model not in (None, MODEL_NAME):
            raise RunnerError(
                f"without a {label} base URL the bundled {MODEL_NAME} is the {label}; drop its model {endpoint.model!r}"
            )
        shared = dataclasses.replace(first, concurrency=endpoint.concurrency or LOCAL_CONCURRENCY, secrets=[])
        return Second(label, endpoint, shared)
    return Second(label, endpoint, connect(stack, endpoint))


@dataclass(frozen=True)
class RunPlan(Generic[J]):
    """What a benchmark hands to :func:`execute`, built once its endpoint is connected.

    The run file: ``path``, the :class:`~eqbench_nb.runner.header.RunHeader` (or plain mapping) a new file starts
    with (its
    ``iterations`` bounds the records'), and its
    record format: ``record_from_json``, the header fields a resume must match (``settings_keys``), and the fields a
    record shares with its header (``identity``); a record's ``key`` is (iteration from 1, item id) and its
    ``to_json()`` has ``"type": "record"``. ``jobs`` gives the jobs still to do from the records the file already
    holds (``total`` is the count of all their records, for the bar: one per job, or as many as it yields).
    ``solver(transport, header)`` gives the ``solve`` of one job (``header`` is the file's, read with the plan's
    header part: a resume keeps it);
    with a second endpoint, ``solver(transport, header, second_transport)``. ``summary`` is a record's (parsed?,
    score) for the bar, shown as ``score_label``, ``score_scale`` times the mean of the scores that are not None.
    ``batch_key`` names a job in the Batch API's custom ids (None: its jobs cannot go through the Batch API).
    ``extendable`` names the header fields in which a run may grow to more items (``RunSettings.extend``): the item
    ids, and the fields that follow them.
    """

    path: Path
    header: RunHeader[Any] | Mapping[str, Any]
    record_from_json: Callable[[dict[str, Any]], Any]
    settings_keys: tuple[str, ...]
    identity: tuple[str, ...]
    jobs: Callable[[list[Any]], Iterable[J]]
    total: int
    solver: Callable[..., Callable[[J], Any]]
    summary: Summary
    desc: str
    score_label: str = "score"
    score_scale: float = 10.0
    batch_key: Callable[[J], str] | None = None
    #: names a job in a batched judge's custom ids (None: this benchmark's judges cannot go through the Batch API)
    item_key: Callable[[J], str] | None = None
    extendable: tuple[str, ...] = ()
    #: header lists that may grow without ``--extend`` (a judge panel: a judge joins the run), recorded as an
    #: extension event before anything is asked
    joinable: tuple[str, ...] = ()
    #: the labels the plan gives its labelled endpoints once connected (a judge's place in the run's panel), by the
    #: label each was connected under
    labels: dict[str, str] = field(default_factory=dict)
    #: the label of the run's own endpoint in the run file (None: unlabelled, ``deviations``); a judgements file
    #: asks each judge of its panel as its own endpoint, each with deviations of its own
    endpoint_label: str | None = None
    #: what the benchmark's jobs are, in the stop lines ("13 prompts in a row gave up")
    item_noun: str = "questions"
    #: whose key the run's own endpoint uses, for a refused key's line: None, the model under test's
    #: (``--api-key-env``); ``"judge"`` where that endpoint is a judge (Judgemark, a judgements file)
    key_owner: str | None = None
    #: the prefix of the run's own endpoint options on the command line (``"judge-"``: Judgemark is run with the
    #: judge options alone)
    option_prefix: str = ""


@dataclass
class Outcome:
    """What :func:`execute` did in this session: records written, jobs left unfinished, the transport's counts,
    the last fault, the rate limiter's and the Batch API's last words, the run file's notes, the wall time, and each
    labelled endpoint's counts and last fault (a judge's; a panel's judges later)."""

    answered: int
    unfinished: int
    stats: TransportStats
    last_fault: str
    notes: list[str]
    wall_s: float
    concurrency: str | None = None
    batch: str | None = None
    others: dict[str, tuple[TransportStats, str]] = field(default_factory=dict)

    @property
    def second_stats(self) -> TransportStats | None:
        """The first labelled endpoint's counts (a judge's), if any."""
        return next(iter(self.others.values()))[0] if self.others else None

    @property
    def second_last_fault(self) -> str:
        return next(iter(self.others.values()))[1] if self.others else ""


def _adapter(
    endpoint: Endpoint, run_file: RunFile, notice: Callable[[str], None], label: str | None = None
) -> ParameterAdapter:
    """The endpoint's :class:`ParameterAdapter`, starting from the deviations the run file records for it; each new
    one is in the run file at once (under ``label`` for a second endpoint) and said."""

    def deviation(code: str) -> None:
        run_file.append_event({"event": "deviation", "code": code} | ({"endpoint": label} if label else {}))
        notice(f"note: {f'{label}: ' if label else ''}{DEVIATIONS[code]}; recorded in the run header")

    return ParameterAdapter(endpoint.reasoning_effort, run_file.header.get(deviations_key(label)) or (), deviation)


def key_hint(endpoint: Endpoint, owner: str | None = None) -> str:
    """What a refused key (401/403) asks to check: the variable this endpoint's key came from, and the option that
    names it, the model under test's (``owner`` None) or a judge's (``owner`` its label: "judge", "judge 2")."""
    var = endpoint.api_key_env or "OPENAI_API_KEY"
    option = "--api-key-env" if owner is None else "--judge-api-key-env, or api_key_env in a --judges file"
    named = f"named by {option}" if endpoint.api_key_env else f"the default; {option} names another"
    whose = "the" if owner is None else f"the {owner}'s"
    return f"{whose} key variable {var} ({named})"


def _transport(
    conn: Connection,
    endpoint: Endpoint,
    run_file: RunFile,
    notice: Callable[[str], None],
    label: str | None = None,
    settings: RunSettings | None = None,
    key_owner: str | None = None,
) -> tuple[Transport, Any, AdaptiveLimiter | None]:
    """(a transport, its client, its rate limiter) for one connected endpoint, built here only: one request at a
    time under the limiter, or (``endpoint.batch``) the Batch API, with no limiter: the run's own endpoint's, or
    a judge's (``label``: its batch events carry it) beside a model under test asked one request at a time."""
    adapter = _adapter(endpoint, run_file, notice, label)
    policy = endpoint.policy
    cap = policy.max_retry_after_s  # also the longest one request waits for the pace the headers set
    limiter = None
    if not endpoint.batch:
        limiter = AdaptiveLimiter(conn.concurrency, endpoint.adaptive, max_pause_s=cap, max_wait_s=cap, notice=notice)
    client = make_client(
        conn.base_url,
        conn.api_key,
        endpoint.timeout,
        BATCH_FILE_BYTES if endpoint.batch else MAX_BODY_BYTES,
        on_response=limiter.observe if limiter is not None else None,
    )
    common: dict[str, Any] = dict(
        deadline_s=endpoint.timeout,
        secrets=conn.secrets,
        notice=notice,
        adapter=adapter,
        limiter=limiter,
        key_hint=key_hint(endpoint, key_owner),
    )
    if endpoint.batch:
        batch = BatchTransport(
            client,
            conn.model,
            conn.endpoint,
            conn.api_key,
            policy,
            run_file=run_file,
            poll_interval_s=endpoint.poll_interval_s,
            batch_wait_s=endpoint.batch_wait_s,
            resubmit_unconfirmed=endpoint.resubmit_unconfirmed,
            bars=settings.progress if settings is not None else True,
            label=label,
            **common,
        )
        return batch, client, None
    return Transport(client, conn.model, conn.endpoint, conn.api_key, policy, **common), client, limiter


async def execute(
    conn: Connection,
    endpoint: Endpoint,
    settings: RunSettings,
    plan: RunPlan[J],
    second: Second | Sequence[Second] | None = None,
) -> Outcome:
    """Run ``plan``'s jobs against the connected endpoint (and the labelled ones, ``second``: one or several, see
    the module docstring); the run file is closed, and a failed write said, whatever happens."""
    seconds: list[Second] = [] if second is None else [second] if isinstance(second, Second) else list(second)
    started = time.perf_counter()
    first = plan.header if isinstance(plan.header, RunHeader) else RunHeader.read(plan.header)
    run_file = RunFile(
        plan.path,
        first.to_json(),
        plan.record_from_json,
        plan.settings_keys,
        plan.identity,
        settings.repair,
        plan.extendable,
        extend=settings.extend is not None,
        joinable=plan.joinable,
    )
    for note in filter(None, run_file.notes):
        print(note, file=sys.stderr)
    header = RunHeader.read(run_file.header, type(first.own))  # the file's: a resume keeps its own
    jobs = plan.jobs(run_file.finished)  # planned lazily: the pool pulls one job at a time
    progress: Progress | None = None
    transport: Transport | None = None
    limiter: AdaptiveLimiter | None = None
    clients: list[Any] = []
    others: list[tuple[str, Transport]] = []
    failed, stopped = True, False
    try:  # from here on the run file (and its lock) is closed whatever happens
        progress = Progress(
            plan.total,
            run_file.finished,
            plan.summary,
            settings.progress,
            desc=plan.desc,
            score_label=plan.score_label,
            score_scale=plan.score_scale,
        )
        shown = progress
        for other in seconds:
            label = plan.labels.get(other.label, other.label)
            _refuse_unsettled(plan, run_file, other.endpoint, label)
            t, other_client, _ = _transport(other.connection, other.endpoint, run_file, shown.write, label,
                                            settings=settings, key_owner=label)  # fmt: skip
            clients.append(other_client)
            others.append((label, t))
        extra = tuple(t for _, t in others)
        if endpoint.batch and plan.batch_key is None:
            raise RunnerError("this benchmark's runs cannot go through the Batch API")
        _refuse_unsettled(plan, run_file, endpoint, plan.endpoint_label)
        batched = [t for t in extra if isinstance(t, BatchTransport)]
        if batched and (endpoint.batch or plan.item_key is None):
            raise RunnerError("this benchmark's judges cannot go through the Batch API"
                              + (" while the model under test does (--batch)" if endpoint.batch else ""))  # fmt: skip
        parking = Parking(batched) if batched else None
        for t in batched:
            t.parking = parking
        transport, client, limiter = _transport(
            conn, endpoint, run_file, shown.write, plan.endpoint_label, settings=settings, key_owner=plan.key_owner
        )
        clients.append(client)
        solve = plan.solver(transport, header, *extra)
        if isinstance(transport, BatchTransport):
            assert plan.batch_key is not None
            answered, unfinished = await answer_all_batched(
                jobs, solve, plan.batch_key, run_file, transport, shown.update
            )
        else:
            counts = await answer_all(
                jobs,
                solve,
                run_file,
                transport,
                conn.concurrency,
                progress,
                conn.named,
                others=extra,
                item_noun=plan.item_noun,
                hint=refusal_hint(conn, plan.option_prefix),
                parking=parking,
                item_key=plan.item_key,
            )
            answered, unfinished = counts.answered, counts.unfinished
            stop = next((t.stop_error for t in batched if t.stop_error is not None), None)
            if stop is not None:  # a judge's batch closed or outlived --batch-wait: what it held is written
                raise stop
        failed = False
    except RunnerError:
        stopped = True
        raise
    finally:
        if progress is not None:
            progress.close(failed)
        run_file.close()
        if failed and stopped:
            run_file.discard_if_unused()  # a new file with its header alone is no run: runs and score would list it
        for c in clients:
            await c.close()
        if run_file.error:  # a failed write says more than whatever it made fail
            raise RunnerError(
                f"{run_file.error}; {run_file.lost} answer{'s' if run_file.lost != 1 else ''} received since the "
                f"last write could not be saved and no new request was sent; {run_file.error_hint}"
            )
    return Outcome(
        answered,
        unfinished,
        transport.stats,
        transport.last_fault,
        [n for n in run_file.notes if n],
        time.perf_counter() - started,
        limiter.describe() if limiter is not None else None,
        _batch_line(transport, others),
        {label: (t.stats, t.last_fault) for label, t in others},
    )


def _refuse_unsettled(plan: RunPlan[Any], run_file: RunFile, endpoint: Endpoint, label: str | None) -> None:
    """A run whose file holds batches of this endpoint (``label``: a judge's) not known to have ended, sent now
    without the Batch API, would pay for their requests again: refused in one line."""
    if endpoint.batch or not unsettled_batches(run_file.events, label):
        return
    whose, flag = ("", f"--{plan.option_prefix}batch") if label is None else (f" of {label}", "--judge-batch")
    raise RunnerError(
        f"{display_path(plan.path)} has batches{whose} submitted through the Batch API; run with {flag} to "
        "collect them (they are paid for) rather than asking their questions again"
    )


def _batch_line(transport: Transport, others: Sequence[tuple[str, Transport]]) -> str | None:
    """What the Batch API did this session, the run's own endpoint's and each batched judge's (None: no batch)."""
    parts = [t.batch_stats.describe() if label is None else f"{label}: {t.batch_stats.describe()}"
             for label, t in [(None, transport), *others] if isinstance(t, BatchTransport)]  # fmt: skip
    return "; ".join(parts) or None


def refusal_hint(conn: Connection, prefix: str = "") -> str:
    """What to check when the endpoint refuses every first request: the model and its limits, or, for the bundled
    model, its context, with the options that name another (``prefix``: ``"judge-"`` for the judge's)."""
    if conn.local:
        from .local_model import CTX_PER_SLOT

        return (
            f"the bundled model reads at most {CTX_PER_SLOT:,} tokens a request; give a larger one with "
            f"--{prefix}base-url URL --{prefix}model M"
        )
    return f"check --{prefix}model and the endpoint's limits"


Labelled = tuple[str, Endpoint]


def run_plan(
    endpoint: Endpoint,
    settings: RunSettings,
    build: Callable[..., RunPlan[J]],
    second: Labelled | Sequence[Labelled] | None = None,
) -> tuple[RunPlan[J], Outcome]:
    """Connect to ``endpoint`` (and to ``second``: a (label, Endpoint), or several; the bundled model is stopped
    when this returns), build the plan (``build(conn, *seconds)``: one :class:`Second` per labelled endpoint) and
    execute it; Ctrl-C or SIGTERM is said in one line naming the run file (:func:`reported_interrupt`)."""
    if not second:
        labelled: list[Labelled] = []
    elif isinstance(second[0], str):
        labelled = [cast(Labelled, second)]
    else:
        labelled = list(cast(Sequence[Labelled], second))
    with ExitStack() as stack:
        conn = connect(stack, endpoint, repeatable=settings.seed is not None)
        others = [connect_second(stack, label, other, conn) for label, other in labelled]
        plan = build(conn, *others)
        if settings.extend is not None and not same_file(plan.path, settings.extend):
            raise RunnerError(
                f"--extend {display_path(Path(settings.extend))}: these options make another run "
                f"({display_path(plan.path)}: its model or question set differ); give the options the run was made with"
            )
        with reported_interrupt(plan.path):
            return plan, run_coroutine(lambda: execute(conn, endpoint, settings, plan, others))


@dataclass(frozen=True)
class Task(Generic[J]):
    """What a benchmark declares for one run; :func:`run_task` does the rest (connect, header, file name, plan,
    execute, read back, summarise).

    ``name`` is the file name's middle part (``<model>__<name>__<run id>.jsonl``); ``run_id`` the default run id
    (:class:`RunSettings`' ``run_id`` replaces it). ``header(conn, run_id, others)`` builds the
    :class:`~eqbench_nb.runner.header.RunHeader` of a new file once the endpoints are connected (``others``: the
    :class:`Second` of each labelled endpoint, by label). ``endpoints`` are the labelled endpoints beside the first
    (``("judge", Endpoint)``; a judge panel is several). ``read(path)`` reads the run file back; ``summarise(run)``
    is the benchmark's own summary of it. The rest is :class:`RunPlan`'s, which see.
    """

    name: str
    run_id: str
    header: Callable[[Connection, str, Mapping[str, Second]], RunHeader[Any]]
    record_from_json: Callable[[dict[str, Any]], Any]
    settings_keys: tuple[str, ...]
    identity: tuple[str, ...]
    jobs: Callable[[list[Any]], Iterable[J]]
    total: int
    solver: Callable[..., Callable[[J], Any]]
    summary: Summary
    desc: str
    read: Callable[[Path], Any]
    summarise: Callable[[Any], Any]
    score_label: str = "score"
    score_scale: float = 10.0
    batch_key: Callable[[J], str] | None = None
    #: :class:`RunPlan`'s, which see
    item_key: Callable[[J], str] | None = None
    extendable: tuple[str, ...] = ()
    endpoints: tuple[Labelled, ...] = ()
    #: completes the plan once built, given the labelled endpoints connected (by label): a judge panel reads the
    #: run file's panel, joins this command's judges to it, and names their labels, jobs and total
    complete_plan: Callable[[RunPlan[J], Mapping[str, Second]], RunPlan[J]] | None = None
    #: :class:`RunPlan`'s, which see
    item_noun: str = "questions"
    key_owner: str | None = None
    option_prefix: str = ""


@dataclass
class RunResult(Generic[R, S]):
    """What every benchmark's run reports: its file, the run as read back, the benchmark's own ``summary`` of it
    (typed by the benchmark), this session's counts (records written now, jobs left unfinished, the transport's
    requests and the labelled endpoints', wall time), the run file's notes and the reader's warnings, the last fault,
    the rate limiter's and the Batch API's last words."""

    path: Path
    run: R
    summary: S
    stats: TransportStats
    wall_s: float
    answered_now: int
    unfinished: int
    expected: int
    notes: list[str] = field(default_factory=list)
    #: the last transport fault or failed request of this session, of any endpoint ("" if none)
    last_fault: str = ""
    #: the rate limiter's last word (None for a batch run)
    concurrency: str | None = None
    #: the Batch API's figures for this session (None without --batch)
    batch: str | None = None
    #: each labelled endpoint's counts (a judge's), by label
    endpoint_stats: dict[str, TransportStats] = field(default_factory=dict)

    #: what one job of the run is called in the line that says some are left unfinished
    UNIT: ClassVar[str] = "question"

    @property
    def complete(self) -> bool:
        """Every planned record is in the file and nothing is left for a resume."""
        return len(getattr(self.run, "records", ())) >= self.expected and not self.unfinished

    @property
    def left(self) -> int:
        """How many jobs are left for a resume (0: some, uncounted)."""
        return self.unfinished

    def table(self) -> str:
        """The run as the command line prints it (each benchmark's own table)."""
        raise NotImplementedError

    def unfinished_line(self) -> str:
        """The one line the command line prints on stderr when the run is not complete (exit 3)."""
        n, unit = self.left, self.UNIT
        return (
            f"error: {n or 'some'} {unit}{'' if n == 1 else 's'} left unfinished (last fault: "
            f"{clip(self.last_fault or 'none', 300)}); run the same command again to resume"
        )


RR = TypeVar("RR", bound=RunResult[Any, Any])


def naming_every_key_variable(header: RunHeader[Any], endpoint: Endpoint, task: Task[Any]) -> RunHeader[Any]:
    """The header naming the key variable of every endpoint the run connects (``api_key_env`` for the run's own,
    ``<label>_api_key_env`` for each labelled one) that the benchmark's own fields do not name already: what every
    later output of the run's file redacts (:func:`~eqbench_nb.runner.redact.key_variables` reads them back), so no
    benchmark can leave a key variable out of the one redaction set."""
    named = set(key_variables(header))
    missing = {
        field: variable
        for field, variable in (
            ("api_key_env", endpoint.api_key_env),
            *((f"{label}_api_key_env", other.api_key_env) for label, other in task.endpoints),
        )
        if variable and variable not in named and field not in header
    }
    return header.replace(**missing) if missing else header


def run_task(endpoint: Endpoint, settings: RunSettings, task: Task[J], result_type: type[RR]) -> RR:
    """One run's life (the module docstring): connect the endpoint and ``task.endpoints``, build the header, name
    the file, plan, execute, read the file back and summarise it, as a ``result_type`` (the benchmark's
    :class:`RunResult`, which adds how its result is printed)."""
    for _, other in task.endpoints:
        url_secrets(other)

    def build(conn: Connection, *others: Second) -> RunPlan[J]:
        rid = settings.run_id or task.run_id
        header = naming_every_key_variable(task.header(conn, rid, {o.label: o for o in others}), endpoint, task)
        plan = RunPlan(
            Path(settings.out_dir) / f"{sanitise(conn.model)}__{task.name}__{sanitise(rid)}.jsonl",
            header,
            task.record_from_json,
            task.settings_keys,
            task.identity,
            task.jobs,
            task.total,
            task.solver,
            task.summary,
            desc=f"{conn.model} {task.desc}",
            score_label=task.score_label,
            score_scale=task.score_scale,
            batch_key=task.batch_key,
            item_key=task.item_key,
            extendable=task.extendable,
            item_noun=task.item_noun,
            key_owner=task.key_owner,
            option_prefix=task.option_prefix,
        )
        return task.complete_plan(plan, {o.label: o for o in others}) if task.complete_plan else plan

    plan, outcome = run_plan(endpoint, settings, build, task.endpoints)
    run = task.read(plan.path)
    last_fault = outcome.last_fault or next((f for _, f in outcome.others.values() if f), "")
    return result_type(
        plan.path,
        run,
        task.summarise(run),
        outcome.stats,
        outcome.wall_s,
        outcome.answered,
        outcome.unfinished,
        plan.total,  # the plan's: a completed plan (a judge panel) may count more records
        outcome.notes + list(getattr(run, "warnings", [])),
        last_fault,
        outcome.concurrency,
        outcome.batch,
        {label: stats for label, (stats, _) in outcome.others.items()},
    )


@contextmanager
def reported_interrupt(path: Path) -> Iterator[None]:
    """Ctrl-C or SIGTERM inside: one line says what is saved in ``path`` and how to resume, and the
    exception is marked ``reported`` so the command line prints nothing more."""
    try:
        yield
    except KeyboardInterrupt as exc:
        how = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        print(
            f"{how}: finished answers, and those in flight that arrived within a few seconds, are saved in "
            f"{display_path(path)}; run the same command again to resume",
            file=sys.stderr,
        )
        setattr(exc, "reported", True)  # noqa: B010 -- the command line then prints no second line
        raise
