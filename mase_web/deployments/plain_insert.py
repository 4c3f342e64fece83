"""Insert many new rows of one model with their values adapted once each, not through every field's hooks.

A group of 32 tickets stores ~130 decision steps. Django's `bulk_create` passes each value of each row
through the field's ``pre_save`` and ``get_db_prep_save`` and builds a placeholder per value: on the
serving path that was ~1 ms of CPU per ticket, ten times the database's own work for the same INSERT
(in-process, 32 threads; bench/web_tickets.py). The rows stored here hold plain values (text, numbers,
foreign keys), JSON and timestamps, so each value is adapted directly; a model with any other kind of
field goes through `bulk_create`. Rows are inserted as they are: no ids come back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db import connection, models
from django.utils import timezone

# fields whose Python value the database drivers take as it is; numbers are cast (a numpy float is not one)
_AS_IS = (models.CharField, models.TextField, models.ForeignKey)
_CAST = ((models.FloatField, float), (models.IntegerField, int), (models.BooleanField, bool))


def _adapter(field: models.Field, now: Any) -> Callable[[Any], Any] | None:
    """How to turn the attribute's value into the parameter; None: unchanged; raises TypeError if unknown."""
    ops = connection.ops
    if isinstance(field, models.JSONField):
        return lambda value: ops.adapt_json_value(value, field.encoder)
    if isinstance(field, models.DateTimeField):
        if field.auto_now or field.auto_now_add:
            stamped = ops.adapt_datetimefield_value(now)
            return lambda _value: stamped
        return ops.adapt_datetimefield_value
    if isinstance(field, _AS_IS):
        return None
    for kind, cast in _CAST:
        if isinstance(field, kind):
            return lambda value, cast=cast: None if value is None else cast(value)
    raise TypeError(f"{field.model.__name__}.{field.name}: {type(field).__name__} is not inserted as is")


def insert_rows(objs: Sequence[models.Model]) -> None:
    """INSERT ``objs`` (new instances of one model, default primary key) in as few statements as the
    database allows; their ``auto_now``/``auto_now_add`` timestamps are set to now, as `save` would."""
    if not objs:
        return
    model = type(objs[0])
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    now = timezone.now()
    try:
        adapters = [_adapter(f, now) for f in fields]
    except TypeError:
        model.objects.bulk_create(objs)
        return
    for obj in objs:
        for f in fields:
            if isinstance(f, models.DateTimeField) and (f.auto_now or f.auto_now_add):
                setattr(obj, f.attname, now)
    attnames = [f.attname for f in fields]
    quote = connection.ops.quote_name
    head = f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) VALUES "
    placeholder = f"({', '.join(['%s'] * len(fields))})"
    batch = max(1, connection.ops.bulk_batch_size(fields, objs))
    with connection.cursor() as cursor:
        for start in range(0, len(objs), batch):
            chunk = objs[start : start + batch]
            params = [
                value if adapt is None else adapt(value)
                for obj in chunk
                for adapt, value in zip(adapters, [getattr(obj, a) for a in attnames], strict=True)
            ]
            cursor.execute(head + ", ".join([placeholder] * len(chunk)), params)
