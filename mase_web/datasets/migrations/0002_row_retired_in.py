"""Versions stop copying their parent: a row is held from the version that adds it until one retires it.

Before, every version stored a full copy of its rows, so each row of version k was held by k alone: the
rows of every version but the newest of its dataset are retired by the next version's number."""

from django.db import migrations, models


def retire_copies(apps, schema_editor):
    DatasetVersion = apps.get_model("datasets", "DatasetVersion")
    DatasetRow = apps.get_model("datasets", "DatasetRow")
    numbers: dict[int, list[tuple[int, int]]] = {}
    for pk, dataset, number in DatasetVersion.objects.values_list("pk", "dataset_id", "number"):
        numbers.setdefault(dataset, []).append((number, pk))
    for versions in numbers.values():
        versions.sort()
        for (_, pk), (next_number, _) in zip(versions, versions[1:], strict=False):
            DatasetRow.objects.filter(version_id=pk).update(retired_in=next_number)


class Migration(migrations.Migration):
    dependencies = [("datasets", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="datasetrow",
            name="retired_in",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="The number of the first version of the dataset that no longer holds the row (null: "
                "the newest holds it). Set once; the row's content never changes.",
                null=True,
            ),
        ),
        migrations.RunPython(retire_copies, migrations.RunPython.noop),
    ]
