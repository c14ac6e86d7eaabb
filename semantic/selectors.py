"""Reading the stored embeddings for other apps (recommendations learn from them)."""

from __future__ import annotations

import numpy as np

from semantic.embedder import get_embedder
from semantic.models import PaperEmbedding, vector_from_bytes

READ_CHUNK = 5000


def stored_vectors() -> dict[int, np.ndarray]:
    """Every paper's stored vector from the current model, by paper id; {} when semantic
    search is off (the vectors of another model do not compare with its)."""
    embedder = get_embedder()
    if embedder is None:
        return {}
    rows = PaperEmbedding.objects.filter(model=embedder.name).values_list("paper_id", "vector")
    return {pk: vector_from_bytes(bytes(vector)) for pk, vector in rows.iterator(READ_CHUNK)}
