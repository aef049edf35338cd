"""Which cached entries each layer kind of a model reads, by part (the attention kernel's,
an indexer's, a linear layer's scan), and the groups of layers priced alike: what both the
caches' sizes and a step's attention work (sims.physics.pricing) are worked out from.

Mixed into sims.physics.shapes.Model, whose layer kinds these read.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import TYPE_CHECKING

from sims.physics.kinds import CHUNKED, COMPRESSED, LINEAR, SPARSE, LayerKind, Matmul
from sims.physics.reach import Reach

if TYPE_CHECKING:
    from sims.physics.shapes import Model

    _Base = Model
else:
    _Base = object


class LayerReads(_Base):
    """The reading part of Model (see the module docstring)."""

    def reaches(self, kind: LayerKind) -> dict[str, Reach]:
        """The entries a layer's query reads, by part: "attend" (the attention kernel's;
        a compressed layer's window and its "compressed" entries), "index" (the entries its
        indexer scores), and "all" (every token: what a linear layer's scan and a latent
        prefill's up-projection go over)."""
        if kind.attention == LINEAR:
            return {"all": Reach()}
        if kind.attention == CHUNKED:
            return {"attend": Reach(chunk=kind.window)}
        if kind.attention == SPARSE:
            own = {"index": Reach()} if kind.indexer else {}
            return {"attend": Reach(span=kind.topk), **own, "all": Reach()}
        if kind.attention == COMPRESSED:
            parts = {"attend": Reach(span=kind.window),
                     "compressed": Reach(span=kind.topk * kind.ratio, ratio=kind.ratio)}
            if kind.topk:
                parts["index"] = Reach(ratio=kind.ratio)
            return parts
        return {"attend": Reach(span=kind.window), "all": Reach()}

    @cached_property
    def kind_groups(self) -> tuple[tuple[LayerKind, int, dict[str, Reach]], ...]:
        """`groups` with each kind's reaches (worked out once: a step prices every group)."""
        return tuple((kind, count, self.reaches(kind)) for kind, count in self.groups)

    @cached_property
    def projection_groups(self) -> tuple[tuple[tuple[Matmul, ...], int], ...]:
        """(attention projections, layers that have them): layers alike are priced at once
        (one group when every layer's projections are the same). Latent attention's are
        priced in its own forms (sims.physics.layers), so a latent model has none here."""
        if self.latent:
            return ()
        return tuple(Counter(self.attention_matmuls(kind) for kind in self.kinds).items())

    @cached_property
    def latent_groups(self) -> tuple[tuple[LayerKind, int], ...]:
        """A latent model's layers by attention kind (full or sparse): a kind and its count."""
        counts = Counter(kind.attention for kind in self.kinds)
        return tuple((next(k for k in self.kinds if k.attention == attention), count)
                     for attention, count in sorted(counts.items()))

    @cached_property
    def all_reaches(self) -> tuple[Reach, ...]:
        """Every Reach some layer reads (a step works out each one's pairs once)."""
        return tuple(sorted({reach for kind in self.kinds
                             for reach in self.reaches(kind).values()}))

    @cached_property
    def horizon(self) -> int:
        """Context past which every layer's work grows by the same amount per token."""
        return max(reach.horizon for reach in self.all_reaches)
