"""Serializers of the site-wide API endpoints (they describe the responses in the OpenAPI schema)."""

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers


class ModelCountSerializer(serializers.Serializer):
    app = serializers.CharField(help_text="App label, e.g. apis.")
    app_name = serializers.CharField(help_text="The app's human name.")
    verbose_name = serializers.CharField()
    verbose_name_plural = serializers.CharField()
    count = serializers.IntegerField(min_value=0)


class UsersByRoleSerializer(serializers.Serializer):
    annotator = serializers.IntegerField(min_value=0)
    reviewer = serializers.IntegerField(min_value=0)
    admin = serializers.IntegerField(min_value=0)
    none = serializers.IntegerField(min_value=0, help_text="Active users who hold no role.")


# many=False: the stats are the `list` action of their viewset (so the router root links them), yet one object.
@extend_schema_serializer(many=False)
class SiteStatsSerializer(serializers.Serializer):
    models = serializers.DictField(
        child=ModelCountSerializer(),
        help_text='Row counts keyed "app_label.model_name", one entry per model of the site apps.',
    )
    users_by_role = UsersByRoleSerializer(help_text="Active users under their highest role.")
    users = serializers.IntegerField(min_value=0, help_text="Active users in all.")


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()
    expires_at = serializers.DateTimeField(allow_null=True, help_text="null: tokens do not expire on this site.")
