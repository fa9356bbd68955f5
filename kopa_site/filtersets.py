"""FilterSets shared by the HTML lists and the API."""

import django_filters
from django.contrib.auth import get_user_model

from kopa_site.models import Job


class JobFilterSet(django_filters.FilterSet):
    kind = django_filters.CharFilter(help_text="Exact job kind, e.g. site.diagnostics.")
    kind__startswith = django_filters.CharFilter(field_name="kind", lookup_expr="startswith", label="Kind prefix")
    status = django_filters.MultipleChoiceFilter(choices=Job.Status.choices)
    cluster = django_filters.CharFilter()
    created_by = django_filters.ModelChoiceFilter(queryset=get_user_model().objects.all())
    created_after = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = Job
        fields = ["kind", "status", "cluster", "created_by"]
