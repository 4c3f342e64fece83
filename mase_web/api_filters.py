"""The API's list filters: an object named by id in a query (``?project=``, ``?dataset=``, ``?run=``) is
matched by its id alone, never looked up.

django-filter's default for a foreign key looks the id up among *all* objects of its model, so a missing id
was a 400 ("Select a valid choice") while another project's real id was a 200 with no rows: a query could
tell which ids exist outside the caller's projects. Every list is already limited to the caller's projects,
so matching the id is enough: another project's id and one that exists nowhere both answer an empty list.
"""

from __future__ import annotations

from django import forms
from django.db import models
from django_filters import Filter
from django_filters.rest_framework import DjangoFilterBackend, FilterSet

from mase_web.api_parsers import INT64_MAX


class IdFilter(Filter):
    """Rows whose foreign key is this id (a whole number; nothing is looked up)."""

    field_class = forms.IntegerField


ID_FILTER = {"filter_class": IdFilter, "extra": lambda f: {"min_value": 1, "max_value": INT64_MAX}}


class ScopedFilterSet(FilterSet):
    FILTER_DEFAULTS = {
        **FilterSet.FILTER_DEFAULTS,
        models.ForeignKey: ID_FILTER,
        models.OneToOneField: ID_FILTER,
    }


class ScopedFilterBackend(DjangoFilterBackend):
    """`DjangoFilterBackend` whose generated filter sets match foreign keys by id (`ScopedFilterSet`)."""

    filterset_base = ScopedFilterSet
