"""Typed descriptors: properties made by a function call, with precise types.

A family of properties that differ only in a constant (the text fields of an annotation,
each a ``QUIRE_ANNOT_*`` number; the five boxes of a page) is best written as one line
each, ``contents = _string_field(QUIRE_ANNOT_CONTENTS, "...")``. Made with ``property()``,
such attributes are ``Any`` to mypy and to editors. :class:`Attribute` and :class:`Field`
are what ``property()`` is, generic in the owner, the type read and the type assigned,
with ``__get__`` overloads, so that ``annotation.contents`` is ``Optional[str]`` and
``annotation.color = "red"`` is a type error. The factory that makes one declares its
return type (``-> Field[Annotation, Optional[str], Optional[str]]``), from which mypy also
types the getter and the setter given to it.
"""

from __future__ import annotations

from typing import Callable, Generic, NoReturn, Optional, Type, TypeVar, Union, overload

__all__ = ["Attribute", "Field"]

_Owner = TypeVar("_Owner")
_Read = TypeVar("_Read")
_Write = TypeVar("_Write")


class Attribute(Generic[_Owner, _Read]):
    """A read-only computed attribute: ``get(instance)`` on each read. Assigning to it
    raises ``AttributeError``, as for a property without a setter (and is a type error)."""

    def __init__(self, get: Callable[[_Owner], _Read], doc: str) -> None:
        self._get = get
        self._name = "<attribute>"
        self.__doc__ = doc

    def __set_name__(self, owner: Type[_Owner], name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: Optional[type] = None) -> Attribute[_Owner, _Read]: ...

    @overload
    def __get__(self, instance: _Owner, owner: Optional[type] = None) -> _Read: ...

    def __get__(
        self, instance: Optional[_Owner], owner: Optional[type] = None
    ) -> Union[Attribute[_Owner, _Read], _Read]:
        if instance is None:
            return self
        return self._get(instance)

    def __set__(self, instance: _Owner, value: NoReturn) -> None:
        # Defined, as property defines it, so that this is a data descriptor: what
        # inspect, help() and pdoc list as an attribute, not as a method.
        raise AttributeError("%s is read-only" % self._name)

    def __repr__(self) -> str:
        return "<%s %s>" % (type(self).__name__, self._name)


class Field(Attribute[_Owner, _Read], Generic[_Owner, _Read, _Write]):
    """A read-write computed attribute: reading gives ``get(instance)``, assigning calls
    ``set(instance, value)``. What is assigned may be of a wider type than what is read
    (a colour reads as a tuple and takes any sequence, or ``None`` to clear it)."""

    def __init__(self, get: Callable[[_Owner], _Read], set: Callable[[_Owner, _Write], None], doc: str) -> None:
        super().__init__(get, doc)
        self._set = set

    def __set__(self, instance: _Owner, value: _Write) -> None:
        self._set(instance, value)
