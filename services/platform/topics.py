"""Stored events name their class by a topic (``module:Class``), which eventsourcing resolves
by importing the module and walking the attributes. The topic is a column of the events
table, and a ``Created`` event's state names its aggregate's class the same way
(``originator_topic``), and a snapshot's state its aggregate's (``topic``): a row written by anyone but the service (an injection, a restored
backup of unknown origin, another holder of the database login) could make a service import
any module on its path, run its top-level code, and build an object of any class, with no
call of ours in between.

:class:`TrustedMapper` resolves only topics that name a class of this project's own
(``services.…`` module, attribute path of plain public names), and only to a domain event
class (an aggregate class for ``originator_topic``): anything else is refused with
:class:`UntrustedTopic` before a module is imported. Every Application of the services takes
it through :class:`TrustedTopics`.
"""

from __future__ import annotations

import re
from typing import Any

from eventsourcing.domain import Aggregate, DomainEvent, Snapshot
from eventsourcing.persistence import Mapper, MapperDeserialisationError, StoredEvent
from eventsourcing.utils import get_topic, resolve_topic

TOPIC = re.compile(r"services(?:\.[A-Za-z][A-Za-z0-9_]*)+:[A-Za-z][A-Za-z0-9_]*"
                   r"(?:\.[A-Za-z][A-Za-z0-9_]*)*\Z")
"""A topic this project writes: a module under ``services``, then a class's attribute path
with no private or special name (``__init__.__globals__`` would reach anything)."""


LIBRARY = {get_topic(Snapshot): Snapshot}
"""The library's own classes a service stores: eventsourcing's aggregate snapshots (whose
state's ``topic`` names the aggregate class, checked as ``originator_topic`` is)."""


class UntrustedTopic(MapperDeserialisationError):
    """A stored event whose topic (or aggregate topic) is not one of this project's classes."""


def trusted_class(topic: Any, base: type) -> type:
    """The class ``topic`` names, when it is one of ours and a subclass of ``base``; else
    :class:`UntrustedTopic`, and nothing outside ``services`` was imported."""
    if isinstance(topic, str) and topic in LIBRARY and issubclass(LIBRARY[topic], base):
        return LIBRARY[topic]
    if not isinstance(topic, str) or not TOPIC.match(topic):
        raise UntrustedTopic(f"stored topic {str(topic)[:120]!r} is not a class of this "
                             "project: the row was not written by this service")
    try:
        found = resolve_topic(topic)
    except Exception as err:  # a module or class that is not there (TopicError, ImportError)
        raise UntrustedTopic(f"stored topic {topic!r} names nothing here: {err}") from None
    if not (isinstance(found, type) and issubclass(found, base)
            and found.__module__.startswith("services.")):
        raise UntrustedTopic(f"stored topic {topic!r} is not a {base.__name__} class of this "
                             "project")
    return found


class TrustedMapper(Mapper[Any]):
    """eventsourcing's Mapper, resolving only this project's own topics (see the module)."""

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        cls = trusted_class(stored_event.topic, DomainEvent)
        event = super().to_domain_event(stored_event)
        state = getattr(event, "__dict__", {})
        aggregate = state.get("topic") if issubclass(cls, Snapshot) else \
            state.get("originator_topic")
        if aggregate is not None or issubclass(cls, Snapshot):  # mutate() resolves it
            trusted_class(aggregate, Aggregate)
        return event


class TrustedTopics:
    """Mixed into an eventsourcing Application (before ``Application``): its mapper is a
    :class:`TrustedMapper`."""

    factory: Any

    def construct_mapper(self) -> Any:
        return self.factory.mapper(transcoder=self.construct_transcoder(),  # type: ignore[attr-defined]
                                   mapper_class=TrustedMapper)
