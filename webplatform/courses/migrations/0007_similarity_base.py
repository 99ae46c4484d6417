from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("courses", "0006_student_ids"),
    ]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="similarity_excludes_starter",
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name="assignment",
            name="similarity_excludes_reference",
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name="assignment",
            name="similarity_base",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.AddField(
            model_name="similaritycheck",
            name="excluded",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
