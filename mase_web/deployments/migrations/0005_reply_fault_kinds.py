# Every faulty part's kind on the reply (review finds a reply by the fault of any of its parts).

from django.db import migrations, models


def fill(apps, schema_editor):
    """Stored replies: their kinds from their parts (and the first fault, for replies without parts)."""
    Reply = apps.get_model("deployments", "Reply")
    for reply in Reply.objects.exclude(fault="").iterator():
        kinds = [p.get("fault") for p in reply.parts or [] if isinstance(p, dict)]
        unique = list(dict.fromkeys(k for k in [reply.fault, *kinds] if k))
        reply.fault_kinds = f",{','.join(unique)}," if unique else ""
        reply.save(update_fields=["fault_kinds"])


class Migration(migrations.Migration):
    dependencies = [("deployments", "0004_decision_review")]

    operations = [
        migrations.AddField(
            model_name="reply",
            name="fault_kinds",
            field=models.CharField(
                blank=True,
                help_text="Every faulty part's kind, each once, comma-separated with a comma on each end "
                "(',generation_timeout,refusal,'): review finds a reply by the fault of any of its parts.",
                max_length=400,
            ),
        ),
        migrations.AlterField(
            model_name="reply",
            name="fault",
            field=models.CharField(
                blank=True, help_text="The first faulty part's fault kind, if any.", max_length=32
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
