"""Re-encrypt every stored service key with the current KOPA_CREDENTIAL_KEY (docs/security.md, key rotation)."""

from django.core.management.base import BaseCommand, CommandError

from apis.services import credential_rotate


class Command(BaseCommand):
    help = (
        "Re-encrypt stored service keys with the current KOPA_CREDENTIAL_KEY; the previous key must be listed "
        "in KOPA_CREDENTIAL_OLD_KEYS while this runs."
    )

    def handle(self, *args, **options):
        report = credential_rotate()
        self.stdout.write(f"re-encrypted {len(report.rotated)} service key(s) with the current key")
        if report.unreadable:
            raise CommandError(
                f"{len(report.unreadable)} key(s) could not be read with any configured key "
                f"({', '.join(report.unreadable)}): list the key they were stored with in KOPA_CREDENTIAL_OLD_KEYS, "
                "or set them again"
            )
