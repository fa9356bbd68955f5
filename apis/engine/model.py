"""The neutral catalog model the importer produces and the executor and function-schema export consume."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec, located by a JSON pointer into it. Errors block the import; warnings don't."""

    pointer: str
    message: str
    level: str = "error"  # "error" | "warning"

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}"


@dataclass(frozen=True)
class KeySlot:
    """Where a service expects its key: a query parameter, a header (with a prefix such as "Infuser ") or a path segment."""

    name: str
    location: str = "query"  # query | header | path
    prefix: str = ""


@dataclass(frozen=True)
class ServiceSpec:
    base_url: str
    title: str
    description: str = ""
    version: str = ""
    provider: str = ""  # a stable id used for limits: "apis.data.go.kr/1613000", "api.odcloud.kr"
    provider_name: str = ""  # Korean name where the org code is known
    family: str = "other"  # datagokr | datagokr_nonstandard | odcloud | juso | kosis | seoul_open_data | ...
    json_switch: dict[str, str] = field(default_factory=dict)  # parameters that ask for JSON; empty = XML only
    key_param: KeySlot | None = None
    spec_format: str = ""  # "swagger 2.0" | "openapi 3.0.3" ...
    source: str = ""  # where the spec came from (URL, file path or "text")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ToolSpec:
    """One operation as a callable tool. parameters is a JSON Schema object without the key or format switch."""

    method: str
    path: str
    base_url: str
    operation_id: str
    name_ko: str = ""
    description_ko: str = ""
    description_en: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}, "required": []})
    param_locations: dict[str, str] = field(default_factory=dict)  # name -> query | path | header | form | body
    record_fields: list[dict[str, Any]] = field(default_factory=list)  # {path, name, type, description, example}
    record_path: str = ""  # where the records sit in the response: "response.body.items.item", "data" ...
    key_param: KeySlot | None = None
    json_switch: dict[str, str] = field(default_factory=dict)
    provider: str = ""
    family: str = "other"
    response_formats: list[str] = field(default_factory=list)
    deprecated: bool = False
    pointer: str = ""  # JSON pointer of the operation in its spec

    @property
    def key(self) -> str:
        """Identity across re-imports: the method and the path relative to the base URL."""
        return f"{self.method.upper()} {self.path}"

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + self.path

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolSpec:
        values = dict(data)
        if isinstance(values.get("key_param"), dict):
            values["key_param"] = KeySlot(**values["key_param"])
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in values.items() if k in known})
