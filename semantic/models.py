"""Embeddings are derived data: recomputable from the papers, stored so that every app server
reads the same vectors instead of computing its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import models

from papers.models import Paper

if TYPE_CHECKING:
    import numpy as np


class PaperEmbedding(models.Model):
    paper = models.OneToOneField(Paper, on_delete=models.CASCADE, related_name="embedding")
    model = models.CharField(max_length=100)
    # text_hash() of the embedded title and abstract: an unchanged text is not re-embedded.
    text_hash = models.CharField(max_length=64)
    # float16, little-endian: 768 bytes for 384 dimensions; cosine agreement with float32
    # stays above 0.9999.
    vector = models.BinaryField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.model} embedding of paper {self.paper_id}"

    def as_array(self) -> np.ndarray:
        return vector_from_bytes(bytes(self.vector))


# numpy is imported where a vector is read or written, not with the models: every web worker
# loads the models, and a site without search by meaning never needs numpy in one.


def vector_to_bytes(vector: np.ndarray) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype="<f2").tobytes()


def vector_from_bytes(data: bytes) -> np.ndarray:
    import numpy as np

    return np.frombuffer(data, dtype="<f2").astype(np.float32)
