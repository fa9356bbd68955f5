"""Import Swagger/OpenAPI specs into the catalog: the bundled sandbox specs, a file or a URL (idempotent)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from apis.services import CatalogError, SpecImportError, catalog_import, catalog_import_bundled


class Command(BaseCommand):
    help = (
        "Import the bundled catalog (--bundled), a spec file (--file) or a spec URL (--url); re-runs update in place."
    )

    def add_arguments(self, parser):
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--bundled", action="store_true", help="the sandbox's own specs (apis/sandbox/specs)")
        source.add_argument("--file", help="a Swagger 2.0 / OpenAPI 3 file (JSON or YAML)")
        source.add_argument("--url", help="a spec URL or a data.go.kr dataset page")
        parser.add_argument("--base-url", help="override the live base URL (with --file or --url)")
        parser.add_argument(
            "--strict", action="store_true", help="with --bundled: import nothing when any spec is broken"
        )

    def handle(self, *args, bundled, file, url, base_url, strict, **options):
        if bundled and base_url:
            raise CommandError("--base-url applies to one spec (--file or --url), not to the bundled catalog")
        try:
            if bundled:
                report = catalog_import_bundled(strict=strict)
            else:
                report = catalog_import(path=file, url=url, base_url=base_url)
        except SpecImportError as exc:
            raise CommandError(exc.report()) from None
        except CatalogError as exc:
            raise CommandError(str(exc)) from None
        for service in report.services:
            self.stdout.write(f"{service.status:9} {service.service.title or service.service.spec_base_url}")
            for tool in service.touched_tools:
                self.stdout.write(f"  {tool.status:11} {tool.tool.function_name} ({tool.tool.method} {tool.tool.path})")
        for source, warning in report.warnings:
            self.stdout.write(self.style.WARNING(f"warning {source}#{warning.pointer}: {warning.message}"))
        for error in report.refused:
            self.stderr.write(self.style.ERROR(error.report()))
        self.stdout.write(self.style.SUCCESS(report.summary()))
