"""Forms of the catalog pages: the try-it form built from a tool's JSON Schema, and the write-only key form."""

from __future__ import annotations

from typing import Any

from django import forms

from apis.models import Tool
from apis.services import MIN_KEY_LENGTH
from kopa_site.roles import REVIEWER, has_role

PARAM_PREFIX = "param__"
# Annotators may try tools against the sandbox or recordings; calls that spend a real key need a reviewer.
OPEN_MODES = ("sandbox", "replay")
KEYED_MODES = ("live", "record")


def modes_for(user) -> list[str]:
    return list(OPEN_MODES) + (list(KEYED_MODES) if has_role(user, REVIEWER) else [])


def ordered_parameters(tool: Tool) -> list[tuple[str, dict[str, Any], bool]]:
    """(name, schema, required) with required parameters first, each group in the spec's order."""
    properties = tool.parameters.get("properties") or {}
    required = set(tool.required_params)
    ordered = [n for n in properties if n in required] + [n for n in properties if n not in required]
    return [
        (name, properties[name] if isinstance(properties[name], dict) else {}, name in required) for name in ordered
    ]


class TryItForm(forms.Form):
    """One field per parameter (required first, enums as selects, examples as placeholders), plus the mode."""

    mode = forms.ChoiceField(label="Mode", initial="sandbox")

    def __init__(self, *args, tool: Tool, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.tool = tool
        self.fields["mode"].choices = [(m, m) for m in modes_for(user)]
        self.param_names: dict[str, str] = {}
        self.booleans: set[str] = set()
        for name, schema, required in ordered_parameters(tool):
            field_name = PARAM_PREFIX + name
            self.param_names[field_name] = name
            if schema.get("type") == "boolean" and not schema.get("enum"):
                self.booleans.add(field_name)
            self.fields[field_name] = self._field_for(name, schema, required)
        if has_role(user, REVIEWER):
            self.fields["service_key"] = forms.CharField(
                required=False,
                label="Service key for this call",
                help_text="Optional in live or record mode; used once and never stored. Empty: the provider's key.",
                widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
            )

    @staticmethod
    def _field_for(name: str, schema: dict[str, Any], required: bool) -> forms.Field:
        kind = schema.get("type", "string")
        description = str(schema.get("description") or "")
        example = schema.get("example", schema.get("default", ""))
        attrs = {"placeholder": str(example) if example not in (None, "") else "", "data-param": name}
        common = {"label": name, "required": required, "help_text": description}
        if schema.get("enum"):
            choices = [(str(v), str(v)) for v in schema["enum"]]
            if not required:
                choices = [("", "—"), *choices]
            return forms.ChoiceField(choices=choices, widget=forms.Select(attrs=attrs), **common)
        if kind == "boolean":
            choices = [("", "—"), ("true", "true"), ("false", "false")]
            return forms.ChoiceField(choices=choices, widget=forms.Select(attrs=attrs), **common)
        if kind == "integer":
            return forms.IntegerField(widget=forms.NumberInput(attrs=attrs), **common)
        if kind == "number":
            return forms.FloatField(widget=forms.NumberInput(attrs={**attrs, "step": "any"}), **common)
        return forms.CharField(widget=forms.TextInput(attrs=attrs), strip=True, **common)

    def param_fields(self):
        return [self[name] for name in self.param_names]

    def params(self) -> dict[str, Any]:
        """The filled-in parameters under their API names; empty fields are left out."""
        params = {}
        for field_name, name in self.param_names.items():
            value = self.cleaned_data.get(field_name)
            if value in (None, ""):
                continue
            params[name] = value == "true" if field_name in self.booleans else value
        return params


class CredentialForm(forms.Form):
    service_key = forms.CharField(
        label="Service key",
        min_length=MIN_KEY_LENGTH,
        strip=True,
        help_text="Stored encrypted; it is never shown again. Paste the Encoding or the Decoding form.",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
    )


class BaseUrlForm(forms.Form):
    base_url = forms.URLField(label="Live base URL", max_length=500, assume_scheme="https")
