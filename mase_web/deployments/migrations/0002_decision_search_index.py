"""On PostgreSQL, a GIN index over the English text-search vector of each decision (review search)."""

from django.db import migrations

INDEX = "deployments_decision_search_gin"


def _index():
    from django.contrib.postgres.indexes import GinIndex
    from django.contrib.postgres.search import SearchVector

    return GinIndex(SearchVector("search_text", config="english"), name=INDEX)


def add_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.add_index(apps.get_model("deployments", "DecisionStep"), _index())


def remove_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.remove_index(apps.get_model("deployments", "DecisionStep"), _index())


class Migration(migrations.Migration):
    dependencies = [("deployments", "0001_initial")]

    operations = [migrations.RunPython(add_index, remove_index)]
