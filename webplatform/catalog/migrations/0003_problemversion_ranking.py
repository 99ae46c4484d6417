from django.db import migrations, models

import webplatform.catalog.models


class Migration(migrations.Migration):
    """Versions from before a package could name its leaderboard's metrics rank by the default; a
    package that names others comes in as a new version with the next sync."""

    dependencies = [
        ("catalog", "0002_problem_origin"),
    ]

    operations = [
        migrations.AddField(
            model_name="problemversion",
            name="ranking",
            field=models.JSONField(default=webplatform.catalog.models.default_ranking),
        ),
    ]
