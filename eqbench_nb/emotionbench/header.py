"""EmotionBench's part of a run header (:class:`~eqbench_nb.runner.header.RunHeader`): the questionnaire, the
situations and the design, as the runner writes them. Each field is what the file says, typed, or None where it does
not say (or says it in another type)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..runner.header import LEAD_FIELDS, header_part, whole_number

__all__ = ["EmotionHeader"]


@header_part
@dataclass(frozen=True)
class EmotionHeader:
    """EmotionBench's own header fields (see the module docstring)."""

    #: The order of a new header's fields, as every version of the runner wrote them.
    LAYOUT: ClassVar[tuple[str, ...]] = (
        *LEAD_FIELDS,
        "questionnaire",
        "categories",
        "compute_mode",
        "scale",
        "situations",
        "factor_names",
        "repeats",
        "default_repeats",
        "orders",
        "item_orders",
        "parser",
        "temperature",
        "max_tokens",
        "seed",
        "concurrency",
        "timeout_s",
        "eqbench_nb_version",
        "upstream",
        "files_sha256",
        "started_at",
    )
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    questionnaire: str | None = None
    #: factor name -> the item numbers it sums (or averages: ``compute_mode``)
    categories: Mapping[str, Any] | None = None
    compute_mode: str | None = None
    scale: tuple[int, ...] | None = None
    #: the situation keys asked, in order
    situations: tuple[str, ...] | None = None
    factor_names: Mapping[str, Any] | None = None
    repeats: int | None = None
    default_repeats: int | None = None
    orders: int | None = None
    item_orders: tuple[Any, ...] | None = None
    parser: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    files_sha256: Mapping[str, Any] | None = None
    #: the header gives no count of item orders (absent or null, as before the field): its plan has one
    orders_absent: bool = False

    @classmethod
    def from_fields(cls, h: Mapping[str, Any]) -> EmotionHeader:
        situations, scale, orders = h.get("situations"), h.get("scale"), h.get("item_orders")
        categories, names, shas = h.get("categories"), h.get("factor_names"), h.get("files_sha256")
        temperature = h.get("temperature")
        return cls(
            questionnaire=str(h["questionnaire"]) if h.get("questionnaire") is not None else None,
            categories=categories if isinstance(categories, Mapping) else None,
            compute_mode=str(h["compute_mode"]) if h.get("compute_mode") is not None else None,
            scale=tuple(scale) if isinstance(scale, list) else None,
            situations=tuple(str(s) for s in situations) if isinstance(situations, list) else None,
            factor_names=names if isinstance(names, Mapping) else None,
            repeats=whole_number(h.get("repeats")),
            default_repeats=whole_number(h.get("default_repeats")),
            orders=whole_number(h.get("orders")),
            item_orders=tuple(orders) if isinstance(orders, list) else None,
            parser=str(h["parser"]) if h.get("parser") is not None else None,
            temperature=temperature
            if isinstance(temperature, int | float) and not isinstance(temperature, bool)
            else None,
            max_tokens=whole_number(h.get("max_tokens")),
            files_sha256=shas if isinstance(shas, Mapping) else None,
            orders_absent=h.get("orders") is None,
        )

    @property
    def planned_orders(self) -> int | None:
        """The item orders the run plans: ``orders``, one when the header gives none, None when it gives something
        else than a whole number."""
        return 1 if self.orders_absent else self.orders
