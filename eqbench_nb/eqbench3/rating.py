"""From pairwise comparisons to ratings: pseudo-wins, the TrueSkill solve, the interval, the anchors, the window.

Reproduces ``core/trueskill_solver.py`` and the final solve of ``core/elo.py`` / ``merge_results_to_canonical.py``
of EQ-bench/eqbench3 at ``8c3a125`` and ``3c21bcc`` (differences selected by :mod:`.versions`), with the
``trueskill`` package (0.4.5, BSD) that upstream uses:

- **Pairing.** Valid comparisons (no error, both model names) are grouped by (the two models sorted, scenario,
  iteration) in the order they first appear. A group's plus counts are summed over its judgements, each from its
  own model's side; the larger sum wins, and the win fraction is computed from the sums as for one judgement
  (:func:`.pairwise.fraction`, the version's blend) - so both orders of a pair make one comparison.
- **Pseudo-wins** (``bin_fraction``): a fraction of exactly 0.5 is one drawn game; otherwise the winner gets
  ``ceil(|fraction - 0.5| / (0.5 / bin_size))`` wins, at least 1 and at most ``bin_size``.
- **Solve.** TrueSkill with mu 1200, sigma 350/3, beta 350/6, tau 0, draw probability 0; every model in a
  comparison starts at 1200 (one in none at the version's fallback and is never updated); the groups are played
  in order, each pseudo-game updating both ratings at once. The order matters: TrueSkill with tau 0 is a filter,
  not a fit, so early games weigh more (:func:`.study.order_spread` measures how much).
- **Interval.** A second solve with ``sigma_bin_size`` gives sigma; the interval is mu ± 1.96 sigma.
- **Anchors.** Ratings are mapped linearly so that ``o3`` is 1500 and ``meta-llama/llama-3.2-1b-instruct`` is 200
  (raw ratings returned when either is missing); stored ratings are rounded to 2 decimals, and the normalised
  interval is computed from the rounded raw values.
- **Window.** Only comparisons of models at most ``rank_window`` places apart on a given ladder enter the final
  solve; the ladder is the one the caller passes (upstream's sampling loop or the canonical file's own ratings).
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .pairwise import fraction
from .versions import ScoringVersion

DEFAULT_ELO = 1200.0
TS_SIGMA = 350 / 3
TS_BETA = 350 / 6
#: ``normalize_elo_scores``' anchors, in upstream's order (the first two present are used).
ANCHORS: dict[str, float] = {"o3": 1500.0, "meta-llama/llama-3.2-1b-instruct": 200.0}
CI_Z = 1.96


def is_valid(comparison: Mapping[str, Any]) -> bool:
    """``_is_valid_comp``: usable by the solver (no error; both model names; no scenario is ignored upstream)."""
    pair = comparison.get("pair")
    return (
        "error" not in comparison
        and isinstance(pair, Mapping)
        and bool(pair.get("test_model"))
        and bool(pair.get("neighbor_model"))
    )


def within_window(
    comparisons: Iterable[Mapping[str, Any]], ladder: Mapping[str, float], window: int
) -> list[Mapping[str, Any]]:
    """``filter_comps_within_rank_window``: the comparisons of models at most ``window`` places apart when sorted
    by ``ladder`` (ties in the ladder's own order); a model not on the ladder is left out."""
    order = sorted(ladder, key=lambda m: ladder[m])
    place = {m: i for i, m in enumerate(order)}

    def ok(c: Mapping[str, Any]) -> bool:
        a, b = c["pair"].get("test_model"), c["pair"].get("neighbor_model")
        return a in place and b in place and abs(place[a] - place[b]) <= window

    return [c for c in comparisons if ok(c)]


@dataclass(frozen=True)
class Paired:
    """One pair of models on one scenario and iteration, both orders combined: ``a`` < ``b`` by name."""

    a: str
    b: str
    scenario_id: str
    iteration: str
    fraction_a: float  # the win fraction of ``a``
    plus_a: int = 0  # the plus counts summed over the group's judgements, each from its own model's side
    plus_b: int = 0


def pair_comparisons(comparisons: Iterable[Mapping[str, Any]], version: ScoringVersion) -> list[Paired]:
    """Group the valid comparisons by (models, scenario, iteration) in first-appearance order and give each group
    its win fraction from the summed plus counts (``_fraction_from_plus``)."""
    groups: dict[tuple[str, str, str, str], list[Mapping[str, Any]]] = {}
    for c in comparisons:
        key = group_key(c)
        if key is not None:
            groups.setdefault(key, []).append(c)
    out = []
    for (a, b, sid, iteration), group in groups.items():
        plus_a, plus_b = _summed_plus(group, a)
        out.append(Paired(a, b, sid, iteration, _fraction_from_plus(plus_a, plus_b, version), plus_a, plus_b))
    return out


def group_key(comparison: Mapping[str, Any]) -> tuple[str, str, str, str] | None:
    """The group a comparison is paired in: (the two models sorted, scenario, iteration); None for one the pairing
    leaves out (invalid, or without a scenario or an iteration)."""
    if not is_valid(comparison) or "scenario_id" not in comparison:
        return None
    pair = comparison["pair"]
    test, other, iteration = pair.get("test_model"), pair.get("neighbor_model"), pair.get("iteration_index")
    if not (test and other and comparison.get("scenario_id") and iteration is not None):
        return None
    a, b = sorted([str(test), str(other)])
    return a, b, str(comparison["scenario_id"]), str(iteration)


def _summed_plus(group: Sequence[Mapping[str, Any]], a: str) -> tuple[int, int]:
    """The group's plus counts summed, each judgement's from its own model's side: (for ``a``, for the other); every
    comparison carries them here (the canonical file stores them, and this project derives them for every judgement
    it records)."""
    plus_a = plus_b = 0
    for c in group:
        if c["pair"]["test_model"] == a:
            plus_a += c["plus_for_test"]
            plus_b += c["plus_for_other"]
        else:
            plus_b += c["plus_for_test"]
            plus_a += c["plus_for_other"]
    return plus_a, plus_b


def _fraction_from_plus(plus_a: int, plus_b: int, version: ScoringVersion) -> float:
    """``_fraction_from_plus``: the larger sum wins; the win fraction of ``a`` from the sums, as for one judgement."""
    outcome = 1.0 if plus_a > plus_b else 0.0 if plus_a < plus_b else 0.5
    return fraction(outcome, plus_a, plus_b, version).fraction_for_test


@functools.lru_cache(maxsize=4096)  # a solve asks for the same few fractions thousands of times
def pseudo_wins(frac: float, bin_size: int) -> tuple[int, int]:
    """``bin_fraction``: (wins of the first model, wins of the second); (1, 1) is one drawn game."""
    frac = max(0.0, min(1.0, frac))
    step = 0.5 / bin_size
    if abs(frac - 0.5) < 1e-9:
        return 1, 1
    if frac > 0.5:
        margin = frac - 0.5
        return max(1, min(bin_size, math.ceil(margin / step))), 0
    margin = 0.5 - frac
    return 0, max(1, min(bin_size, math.ceil(margin / step)))


def solve(
    models: Iterable[str],
    paired: Sequence[Paired],
    bin_size: int,
    inactive_start: float = DEFAULT_ELO,
    start: Mapping[str, float] | None = None,
) -> tuple[dict[str, float], dict[str, float]]:
    """``solve_with_trueskill`` (margins expanded to extra wins): ({model: mu}, {model: sigma}). Every model in a
    comparison starts at 1200 and any other at ``inactive_start`` (``use_fixed_initial_ratings``), or every model at
    ``start`` (1200 where it has none) when that is given (8c3a125's sampling loop).

    Each game is ``trueskill.rate_1vs1``'s update in closed form (:func:`_play`), with the package's own v and w
    functions, normal cdf/pdf and draw margin: for two players the package's factor graph converges in one pass to
    exactly this update (tests/test_eqbench3.py checks it against ``rate_1vs1`` game by game and over the
    canonical file), at a hundredth of the cost, which the re-solves of notebook 10 need."""
    import trueskill

    env = trueskill.TrueSkill(mu=DEFAULT_ELO, sigma=TS_SIGMA, beta=TS_BETA, tau=0.0, draw_probability=0.0)
    margin = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    active = {p.a for p in paired} | {p.b for p in paired}

    def first(m: str) -> float:
        if start is not None:
            return start.get(m, DEFAULT_ELO)
        return DEFAULT_ELO if m in active else inactive_start

    mu = {m: float(first(m)) for m in [*models, *sorted(active)]}
    var = {m: env.sigma**2 for m in mu}
    two_beta2 = 2 * env.beta**2
    for p in paired:
        if p.a == p.b:
            continue
        wins_a, wins_b = pseudo_wins(p.fraction_a, bin_size)
        if wins_a == 1 and wins_b == 1:
            with contextlib.suppress(ValueError, ArithmeticError):  # upstream logs the failed update and skips it
                _play(env, mu, var, p.a, p.b, margin, two_beta2, drawn=True)
            continue
        # a refused game skips the rest of the pair's games, as upstream's loop does; one side has no wins (only a
        # draw gives both some), and playing no games changes nothing, so it is not called (half of the calls)
        if wins_a and not _wins(mu, var, p.a, p.b, wins_a, margin, two_beta2):
            continue
        if wins_b:
            _wins(mu, var, p.b, p.a, wins_b, margin, two_beta2)
    return mu, {m: math.sqrt(v) for m, v in var.items()}


_SQRT2 = math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _wins(
    mu: dict[str, float], var: dict[str, float], winner: str, loser: str, games: int, margin: float, two_beta2: float
) -> bool:
    """``games`` won games of ``winner`` over ``loser`` played one after another: :func:`_play`'s win update with
    trueskill's own cdf, pdf and erfc (mean 0, SD 1) written out, every operation the same and in the same order,
    so the ratings are the same to the bit (tests/test_eqbench3.py). A solve plays about a million games in
    notebook 10; the function calls were most of their cost. The ratings after the last game that was played are
    kept; False when a game was refused (the package raises), which ends the pair's games."""
    mw, ml, vw, vl = mu[winner], mu[loser], var[winner], var[loser]
    refused = False
    try:
        for _ in range(games):
            c = math.sqrt(two_beta2 + vw + vl)
            x = (mw - ml) / c - margin / c
            e = -x / _SQRT2  # cdf(x) = 0.5 erfc(-(x - mu) / (sigma sqrt 2)), mu 0 and sigma 1
            z = abs(e)
            s = 1.0 / (1.0 + z / 2.0)
            r = s * math.exp(-z * z - 1.26551223 + s * (1.00002368 + s * (0.37409196 + s * (0.09678418 + s * (
                -0.18628806 + s * (0.27886807 + s * (-1.13520398 + s * (1.48851587 + s * (
                    -0.82215223 + s * 0.17087277)))))))))  # fmt: skip
            denom = 0.5 * (2.0 - r if e < 0 else r)
            v = _INV_SQRT_2PI * math.exp(-(x**2 / 2)) / denom if denom else -x
            w = v * (v + x)
            if not 0 < w < 1:
                return False  # the package raises here (w_win out of range)
            cc = c * c
            mw, ml = mw + vw / c * v, ml - vl / c * v
            vw, vl = vw * (1.0 - vw / cc * w), vl * (1.0 - vl / cc * w)
    except (ValueError, ArithmeticError):  # upstream logs the failed update and skips it
        refused = True
    finally:
        mu[winner], mu[loser], var[winner], var[loser] = mw, ml, vw, vl
    return not refused


def _play(
    env: Any,
    mu: dict[str, float],
    var: dict[str, float],
    winner: str,
    loser: str,
    margin: float,
    two_beta2: float,
    drawn: bool = False,
) -> None:
    """One game of ``rate_1vs1(winner, loser, drawn=drawn)`` (tau 0), in place: with c^2 = 2 beta^2 + both
    variances and t = (mu_winner - mu_loser) / c, each mean moves by variance / c * v(t, margin / c) and each
    variance shrinks by the factor 1 - variance / c^2 * w(t, margin / c) (Herbrich et al. 2007). Both v and w are
    computed before anything is changed, so a failed update (the package raises) changes nothing."""
    c = math.sqrt(two_beta2 + var[winner] + var[loser])
    t, m = (mu[winner] - mu[loser]) / c, margin / c
    if drawn:
        v, w = _draw_v_w(env, t, m)
    else:  # env.v_win and env.w_win, without w_win computing v_win a second time
        x = t - m
        denom = env.cdf(x)
        v = env.pdf(x) / denom if denom else -x
        w = v * (v + x)
        if not 0 < w < 1:
            raise FloatingPointError(f"w_win out of range: {w}")  # the package raises here too
    vw, vl = var[winner], var[loser]
    mu[winner] += vw / c * v
    mu[loser] -= vl / c * v
    var[winner] = vw * (1.0 - vw / (c * c) * w)
    var[loser] = vl * (1.0 - vl / (c * c) * w)


def normalise(raw: Mapping[str, float], anchors: Mapping[str, float] = ANCHORS) -> dict[str, float]:
    """``normalize_elo_scores``: the linear map putting the first two anchors present at their targets; the raw
    scores unchanged when fewer than two anchors are present."""
    present = [(m, t) for m, t in anchors.items() if m in raw and isinstance(raw.get(m), (int, float))]
    if len(present) < 2:
        return dict(raw)
    (ma, ta), (mb, tb) = present[0], present[1]
    ra, rb = raw[ma], raw[mb]
    scale = 1.0 if abs(ra - rb) < 1e-6 else (ta - tb) / (ra - rb)
    shift = ta - scale * ra
    return {m: v * scale + shift for m, v in raw.items()}


def anchored(raw: Mapping[str, float], anchors: Mapping[str, float] = ANCHORS) -> bool:
    return sum(1 for m in anchors if m in raw) >= 2


@dataclass(frozen=True)
class Rating:
    """One model's rating as upstream stores it (rounded to 2 decimals)."""

    model: str
    elo: float
    elo_norm: float
    sigma: float
    ci_low: float
    ci_high: float
    ci_low_norm: float
    ci_high_norm: float


def ratings_table(mu: Mapping[str, float], sigma: Mapping[str, float]) -> dict[str, Rating]:
    """The final snapshot: rounded raw rating, normalised rating, sigma, raw and normalised interval."""
    norm = normalise(mu)
    rounded = {m: (round(mu[m], 2), round(sigma.get(m, TS_SIGMA), 2)) for m in mu}
    raw_and_bounds: dict[str, float] = {}
    for m in mu:
        low, high = round(mu[m] - CI_Z * sigma.get(m, TS_SIGMA), 2), round(mu[m] + CI_Z * sigma.get(m, TS_SIGMA), 2)
        raw_and_bounds[m] = rounded[m][0]
        raw_and_bounds[f"{m}__low"], raw_and_bounds[f"{m}__high"] = low, high
    bounds = normalise(raw_and_bounds)
    return {
        m: Rating(
            m,
            rounded[m][0],
            round(norm[m], 2),
            rounded[m][1],
            raw_and_bounds[f"{m}__low"],
            raw_and_bounds[f"{m}__high"],
            round(bounds[f"{m}__low"], 2),
            round(bounds[f"{m}__high"], 2),
        )
        for m in mu
    }


def final_solve(
    models: Iterable[str],
    comparisons: Sequence[Mapping[str, Any]],
    version: ScoringVersion,
    ladder: Mapping[str, float] | None = None,
) -> dict[str, Rating]:
    """The version's final solve: valid comparisons (within the window on ``ladder``, when one is given), the rating
    from ``bin_size`` pseudo-wins, sigma from ``sigma_bin_size``, the anchors."""
    valid = [c for c in comparisons if is_valid(c)]
    if ladder is not None:
        valid = within_window(valid, ladder, version.rank_window)
    paired = pair_comparisons(valid, version)
    everyone = sorted(set(models) | {p.a for p in paired} | {p.b for p in paired})
    mu, sigma = solve(everyone, paired, version.bin_size, version.inactive_start)
    if version.sigma_bin_size != version.bin_size:
        _, sigma = solve(everyone, paired, version.sigma_bin_size, version.inactive_start)
    return ratings_table(mu, sigma)


def _draw_v_w(env: Any, t: float, m: float) -> tuple[float, float]:
    """``(env.v_draw(t, m), env.w_draw(t, m))`` from one evaluation of the cdf and the pdf at the draw's two ends: the
    package's pair evaluates each of them three times (w_draw calls v_draw again). Every operation is the package's,
    in its order, so both are the same to the bit (tests/test_eqbench3_speed.py); a refused draw raises as w_draw
    does. A drawn comparison is played in every re-solve of notebook 10, where they were a fifth of its time."""
    abs_diff = abs(t)
    a, b = m - abs_diff, -m - abs_diff
    denom = env.cdf(a) - env.cdf(b)
    pdf_a, pdf_b = env.pdf(a), env.pdf(b)
    v = (((pdf_b - pdf_a) / denom) if denom else a) * (-1 if t < 0 else +1)  # v_draw(t, m)
    if not denom:
        raise FloatingPointError("w_draw: the draw's two ends have the same cdf")  # the package raises here too
    v_abs = ((pdf_b - pdf_a) / denom) * (-1 if abs_diff < 0 else +1)  # v_draw(|t|, m), as w_draw computes it
    return v, (v_abs**2) + (a * pdf_a - b * pdf_b) / denom
