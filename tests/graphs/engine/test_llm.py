"""The optional LLM scorer, proposer and embeddings against a fake OpenAI-compatible endpoint."""

import json

import httpx
import pytest

from graphs.engine.candidates import Candidate, FieldInfo, ParamInfo, ToolInfo
from graphs.engine.llm import LLMClient, LLMError, client_from_settings, propose, rescore
from graphs.engine.retriever import EmbeddingRetriever

TOOLS = {
    "a": ToolInfo(id="a", name="regions", fields=(FieldInfo("region_cd", "법정동코드", ("1111000000",)),)),
    "b": ToolInfo(id="b", name="trades", params=(ParamInfo("LAWD_CD", True, "지역코드 5자리", ("11680",)),)),
}


def endpoint(answer, seen=None):
    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if seen is not None:
            seen.append((request.url.path, request.headers.get("authorization"), body))
        if request.url.path.endswith("/embeddings"):
            vectors = [[1.0, 0.0] if "코드" in text else [0.0, 1.0] for text in body["input"]]
            return httpx.Response(200, json={"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]})
        return httpx.Response(200, json={"choices": [{"message": {"content": answer}}]})

    return LLMClient(
        "http://llm.test/v1", "judge", api_key="k-123", embedding_model="emb", transport=httpx.MockTransport(handle)
    )


def candidate(score=0.5, transform="identity"):
    return Candidate("a", "region_cd", "b", "LAWD_CD", transform, score, {"total": score})


def test_rescoring_mixes_the_models_feasibility_and_takes_a_better_transform():
    seen = []
    client = endpoint('Sure: [{"i": 0, "feasibility": 0.9, "transform": "slice:0:5"}]', seen)
    kept, scored = rescore(client, [candidate()], TOOLS, min_score=0.3)
    assert scored == 1 and kept[0].transform == "slice:0:5" and kept[0].score == 0.7
    assert kept[0].signals["llm"] == 0.9
    path, auth, body = seen[0]
    assert path == "/v1/chat/completions" and auth == "Bearer k-123" and body["model"] == "judge"
    assert "region_cd" in body["messages"][1]["content"]


def test_a_low_feasibility_drops_the_candidate_and_an_unknown_transform_is_ignored():
    client = endpoint('[{"i": 0, "feasibility": 0.0, "transform": "teleport"}]')
    assert rescore(client, [candidate(score=0.4)], TOOLS, min_score=0.3) == ([], 1)
    client = endpoint('[{"i": 0, "feasibility": 0.8, "transform": "teleport"}]')
    kept, _ = rescore(client, [candidate()], TOOLS, min_score=0.3)
    assert kept[0].transform == "identity"


def test_an_answer_without_json_is_a_clear_error():
    with pytest.raises(LLMError, match="no JSON array"):
        rescore(endpoint("I cannot help with that."), [candidate()], TOOLS, min_score=0.3)


def test_the_proposer_suggests_checked_bindings():
    client = endpoint(
        '[{"source": "regions", "field": "region_cd", "transform": "slice:0:5", "feasibility": 0.8},'
        ' {"source": "regions", "field": "made_up", "transform": "identity", "feasibility": 0.9}]'
    )
    found = propose(client, TOOLS["b"], "LAWD_CD", [TOOLS["a"]], min_score=0.3)
    assert [(c.source_field, c.transform, c.proposer) for c in found] == [("region_cd", "slice:0:5", "llm")]


def test_embeddings_back_the_retriever():
    retriever = EmbeddingRetriever(endpoint("[]").embed)
    retriever.fit(["법정동코드", "거래금액"], ["지역코드 5자리", "계약월"])
    assert retriever.similarity(0, 0) > retriever.similarity(0, 1)
    assert retriever.neighbours(0, 1)[0][0] == 0


def test_nothing_is_configured_without_a_url_and_a_model():
    assert client_from_settings({"llm_url": "", "llm_model": ""}) is None
    assert client_from_settings({"llm_url": "http://x/v1", "llm_model": "m"}).model == "m"
