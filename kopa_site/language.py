"""The page language: the one chosen with the header's switcher (Django's language cookie), else Korean.

Django's LocaleMiddleware would also follow the browser's Accept-Language, so the same page could come up in
English for one annotator and in Korean for the next, beside Korean data and screenshots. The console has
one language, Korean, and English as a translation that a user picks on purpose.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.cache import patch_vary_headers


def language_of(request) -> str:
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
    supported = {code for code, _ in settings.LANGUAGES}
    return chosen if chosen in supported else settings.LANGUAGE_CODE


class LanguageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = language_of(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        try:
            response = self.get_response(request)
        finally:
            translation.deactivate()
        patch_vary_headers(response, ("Cookie",))
        response.headers.setdefault("Content-Language", language)
        return response
