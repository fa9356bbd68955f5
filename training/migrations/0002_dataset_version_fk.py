"""A training run's dataset version becomes a foreign key to the frozen version it trains on (it was an id kept
beside an export path while versions did not exist yet). Ids that name an existing version are kept."""

import django.db.models.deletion
from django.db import migrations, models


def copy_version_ids(apps, schema_editor):
    TrainingRun = apps.get_model("training", "TrainingRun")
    DatasetVersion = apps.get_model("datasets", "DatasetVersion")
    existing = set(DatasetVersion.objects.values_list("pk", flat=True))
    for run in TrainingRun.objects.exclude(dataset_version_number=None).only("pk", "dataset_version_number"):
        if run.dataset_version_number in existing:
            TrainingRun.objects.filter(pk=run.pk).update(dataset_version_id=run.dataset_version_number)


class Migration(migrations.Migration):
    dependencies = [
        ("datasets", "0002_review_console"),
        ("training", "0001_training_runs"),
    ]

    operations = [
        migrations.RenameField("trainingrun", "dataset_version", "dataset_version_number"),
        migrations.AddField(
            model_name="trainingrun",
            name="dataset_version",
            field=models.ForeignKey(
                blank=True,
                help_text="The frozen dataset version trained on (its items are written to dataset_path by the job).",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="training_runs",
                to="datasets.datasetversion",
            ),
        ),
        migrations.RunPython(copy_version_ids, migrations.RunPython.noop),
        migrations.RemoveField("trainingrun", "dataset_version_number"),
        migrations.AlterField(
            model_name="trainingrun",
            name="dataset_path",
            field=models.CharField(
                help_text="The file the training process reads (OpenAI JSONL of the version's items).", max_length=500
            ),
        ),
    ]
