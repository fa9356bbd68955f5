"""The model registry's form (reviewers and admins add and change models on /bench/models/)."""

from __future__ import annotations

from django import forms

from benchmarks.models import ModelEntry
from kopa_site.concurrency import version_from_token, version_token

MODEL_FORM_FIELDS = [
    "name",
    "org",
    "family",
    "params_b",
    "license",
    "base_model",
    "tuned_from_run",
    "backend",
    "call_mode",
    "base_url",
    "served_name",
    "api_key_env",
    "checkpoint",
    "tool_call_parser",
    "chat_template",
    "price_in_per_mtok",
    "price_out_per_mtok",
    "extra_body",
    "notes",
]

VERSION_DAMAGED = "The page's version is missing or damaged; reload the page."


class ModelEntryForm(forms.ModelForm):
    """The fields of a model entry; saving goes through model_entry_create / model_entry_update, which refuse a
    backend without its endpoint or checkpoint, a negative size and the like (their message lands on the form)."""

    class Meta:
        model = ModelEntry
        fields = MODEL_FORM_FIELDS
        labels = {
            "params_b": "Parameters (billions)",
            "base_model": "Base model (empty: this is a base model)",
            "tuned_from_run": "Tuned by training run (id)",
            "api_key_env": "Key's environment variable",
            "price_in_per_mtok": "Price in (USD / M tokens)",
            "price_out_per_mtok": "Price out (USD / M tokens)",
        }
        widgets = {"notes": forms.Textarea(attrs={"rows": 3}), "extra_body": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        choices = ModelEntry.objects.order_by("name")
        if self.instance.pk:
            choices = choices.exclude(pk=self.instance.pk)
        self.fields["base_model"].queryset = choices
        if self.instance.pk:  # the version this page was read at: a save over someone else's later change is refused
            self.fields["version"] = forms.CharField(
                widget=forms.HiddenInput,
                initial=version_token(self.instance),
                error_messages={"required": VERSION_DAMAGED},
            )

    def clean_version(self):
        try:
            return version_from_token(self.cleaned_data["version"])
        except ValueError:
            raise forms.ValidationError(VERSION_DAMAGED) from None

    def differences_from(self, stored: ModelEntry) -> list[dict]:
        """After a refused stale save: each field where what is stored now and what this form sent differ, so the
        editor sees both versions and can carry their change over (the form keeps what they typed)."""
        sent = {"name": self.cleaned_data["name"], **self.fields_for_service()}
        rows = []
        for name, value in sent.items():
            now = getattr(stored, name)
            if now != value:
                rows.append({"label": self.fields[name].label, "stored": now, "yours": value})
        return rows

    def fields_for_service(self) -> dict:
        fields = {name: self.cleaned_data[name] for name in MODEL_FORM_FIELDS if name != "name"}
        if fields["extra_body"] is None:  # an empty box
            fields["extra_body"] = {}
        return fields
