"""The lifetime of a library handle held by a Python object (``Input``, ``Conversion``).

The handle is freed by ``close()`` (idempotent; a context manager calls it) or, as a safety net,
when the object is garbage-collected. Calls on the object may run on several threads at once:
each holds the handle between ``_acquire()`` and ``_release()``, and ``close()`` waits for those
in flight before it frees the handle, so a handle is never used after it was freed.
"""

from __future__ import annotations

import threading
from typing import Any, Optional, TypeVar

_H = TypeVar("_H", bound="Owned")


class Owned:
    """An object that owns one library handle; subclasses name the function that frees it."""

    def __init__(self, handle: Any) -> None:
        self._handle: Optional[Any] = handle
        self._users = 0
        self._idle = threading.Condition()

    @staticmethod
    def _free(handle: Any) -> None:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Frees the handle (idempotent). Waits for calls in flight on other threads."""
        with self._idle:
            handle, self._handle = self._handle, None
            self._idle.wait_for(lambda: self._users == 0)
        if handle is not None:
            self._free(handle)

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        # The safety net for an object never closed: no other thread can be using it any more.
        handle = getattr(self, "_handle", None)
        if handle is not None:
            self._handle = None
            self._free(handle)

    def _acquire(self) -> Any:
        with self._idle:
            if self._handle is None:
                raise ValueError(f"operation on a closed loopcompact.{type(self).__name__}")
            self._users += 1
            return self._handle

    def _release(self) -> None:
        with self._idle:
            self._users -= 1
            if self._users == 0:
                self._idle.notify_all()
