"""Description similarity between source fields and target parameters: a local TF-IDF retriever over
Korean-aware tokens, or an embedding model when one is configured.

Hangul runs become character bigrams (Korean descriptions glue words: "정류소ID", "법정동코드"), Latin text
camelCase-split words. Both retrievers answer the same two questions: how similar one source text is to one
target text, and which targets are nearest to a source text. The TF-IDF one stays fast on large catalogs by
deduplicating texts and skipping tokens too common to discriminate (their postings are never walked).
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Protocol

from graphs.engine.names import TOKEN_SYNONYMS

_HANGUL_RUN = re.compile(r"[\uac00-\ud7a3]+")
_LATIN = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def text_tokens(text: str) -> list[str]:
    """Korean-aware tokens: bigrams of each Hangul run (a one-syllable run stays whole), Latin words."""
    out: list[str] = []
    for run in _HANGUL_RUN.findall(text):
        if len(run) == 1:
            out.append(run)
        else:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    for word in _LATIN.findall(_HANGUL_RUN.sub(" ", text)):
        lowered = word.lower()
        if len(lowered) > 1 or lowered.isdigit():
            out.append(TOKEN_SYNONYMS.get(lowered, lowered))
    return out


class Retriever(Protocol):
    def fit(self, sources: Sequence[str], targets: Sequence[str]) -> None: ...

    def similarity(self, source: int, target: int) -> float: ...

    def neighbours(self, source: int, k: int, min_score: float = 0.0) -> list[tuple[int, float]]: ...


class TfidfRetriever:
    """TF-IDF cosine over text_tokens, with IDF from sources and targets together."""

    def __init__(self, *, max_postings: int = 400):
        self.max_postings = max_postings
        self._source_doc: list[int] = []
        self._target_doc: list[int] = []
        self._vectors: list[dict[str, float]] = []
        self._postings: dict[str, list[tuple[int, float]]] = {}
        self._neighbour_cache: dict[tuple[int, int, float], list[tuple[int, float]]] = {}

    def fit(self, sources: Sequence[str], targets: Sequence[str]) -> None:
        doc_ids: dict[str, int] = {}
        counts: list[Counter[str]] = []

        def doc(text: str) -> int:
            index = doc_ids.get(text)
            if index is None:
                index = doc_ids[text] = len(counts)
                counts.append(Counter(text_tokens(text)))
            return index

        self._source_doc = [doc(text) for text in sources]
        self._target_doc = [doc(text) for text in targets]
        df: Counter[str] = Counter()
        for counter in counts:
            df.update(counter.keys())
        n = max(1, len(counts))
        idf = {token: math.log((1 + n) / (1 + freq)) + 1.0 for token, freq in df.items()}
        self._vectors = []
        for counter in counts:
            vector = {token: (1 + math.log(tf)) * idf[token] for token, tf in counter.items()}
            norm = math.sqrt(sum(w * w for w in vector.values())) or 1.0
            self._vectors.append({token: w / norm for token, w in vector.items()})
        # Postings hold each distinct target text once; tokens in too many of them are not walked.
        postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for doc_id in sorted(set(self._target_doc)):
            for token, weight in self._vectors[doc_id].items():
                postings[token].append((doc_id, weight))
        self._postings = {token: items for token, items in postings.items() if len(items) <= self.max_postings}
        self._targets_of_doc: dict[int, list[int]] = defaultdict(list)
        for target, doc_id in enumerate(self._target_doc):
            self._targets_of_doc[doc_id].append(target)
        self._neighbour_cache = {}

    def similarity(self, source: int, target: int) -> float:
        a, b = self._vectors[self._source_doc[source]], self._vectors[self._target_doc[target]]
        if len(a) > len(b):
            a, b = b, a
        return sum(weight * b.get(token, 0.0) for token, weight in a.items())

    def neighbours(self, source: int, k: int, min_score: float = 0.0) -> list[tuple[int, float]]:
        """Up to k targets nearest to the source (ties: every target sharing a text counts as one)."""
        doc_id = self._source_doc[source]
        key = (doc_id, k, min_score)
        cached = self._neighbour_cache.get(key)
        if cached is not None:
            return cached
        scores: dict[int, float] = defaultdict(float)
        for token, weight in self._vectors[doc_id].items():
            for target_doc, target_weight in self._postings.get(token, ()):
                scores[target_doc] += weight * target_weight
        best = heapq.nlargest(k, ((s, d) for d, s in scores.items() if s >= min_score))
        result = [(target, score) for score, d in best for target in self._targets_of_doc[d]][: k * 4]
        self._neighbour_cache[key] = result
        return result


class EmbeddingRetriever:
    """Cosine similarity of embeddings from `embed(texts) -> vectors` (e.g. an OpenAI-compatible endpoint)."""

    def __init__(self, embed: Callable[[list[str]], list[list[float]]], *, batch_size: int = 256):
        self.embed = embed
        self.batch_size = batch_size

    def _matrix(self, texts: Sequence[str]):
        import numpy as np

        unique = list(dict.fromkeys(texts))
        vectors = []
        for start in range(0, len(unique), self.batch_size):
            vectors.extend(self.embed(unique[start : start + self.batch_size]))
        matrix = np.asarray(vectors, dtype="float32")
        if len(matrix):
            matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
        row = {text: i for i, text in enumerate(unique)}
        return matrix, [row[text] for text in texts]

    def fit(self, sources: Sequence[str], targets: Sequence[str]) -> None:
        self._sources, self._source_rows = self._matrix(sources)
        self._targets, self._target_rows = self._matrix(targets)
        self._target_of_row: dict[int, list[int]] = defaultdict(list)
        for target, row in enumerate(self._target_rows):
            self._target_of_row[row].append(target)

    def similarity(self, source: int, target: int) -> float:
        return float(self._sources[self._source_rows[source]] @ self._targets[self._target_rows[target]])

    def neighbours(self, source: int, k: int, min_score: float = 0.0) -> list[tuple[int, float]]:
        import numpy as np

        if not len(self._targets):
            return []
        scores = self._targets @ self._sources[self._source_rows[source]]
        top = np.argsort(-scores)[:k]
        return [
            (target, float(scores[row]))
            for row in top
            if scores[row] >= min_score
            for target in self._target_of_row[int(row)]
        ][: k * 4]
