"""Jobs: job ids, the success rule, running-job records and the job runner.

* A JID is the UTC time as 20 digits, ``YYYYmmddHHMMSSffffff``; one
  generator never hands out the same JID twice (it bumps a microsecond).
* Success (Salt's contract): retcode 0 (from ``__context__['retcode']``)
  and, when the return is a dict, no falsy ``result`` or ``success``.  An
  exception becomes retcode 1 with the error text as the return.
* :class:`ProcTable` keeps one small JSON file per running job, so
  ``saltutil.running`` in another process sees it.
* :class:`JobRunner` runs one function as a job: it publishes
  ``hearth/job/<jid>/new`` and ``hearth/job/<jid>/ret/<id>`` on the bus.
"""

from __future__ import annotations

import datetime
import inspect
import json
import logging
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from hearth import bus
from hearth.common import exception, paths

LOG = logging.getLogger(__name__)

JID_FORMAT = "%Y%m%d%H%M%S%f"
JID_PATTERN = re.compile(r"^\d{20}(_\d+)?$")
Clock = Callable[[], datetime.datetime]


def utcnow() -> datetime.datetime:
    """Return the current UTC time (timezone-aware)."""
    return datetime.datetime.now(datetime.UTC)


class JidGenerator:
    """Hand out unique JIDs; a JID equal to or before the last one is bumped by 1 µs."""

    def __init__(self, clock: Clock = utcnow) -> None:
        self._clock = clock
        self._last: datetime.datetime | None = None
        self._lock = threading.Lock()

    def __call__(self) -> str:
        """Return the next JID."""
        with self._lock:
            now = self._clock()
            if self._last is not None and now <= self._last:
                now = self._last + datetime.timedelta(microseconds=1)
            self._last = now
        return now.strftime(JID_FORMAT)


#: The process's JID generator.
gen_jid = JidGenerator()


def is_jid(text: Any) -> bool:
    """Return whether ``text`` looks like a JID (20 digits, optionally ``_suffix``)."""
    return isinstance(text, str) and bool(JID_PATTERN.match(text))


def jid_to_datetime(jid: str) -> datetime.datetime:
    """Return the UTC time a JID encodes."""
    stamp = datetime.datetime.strptime(jid[:20], JID_FORMAT)
    return stamp.replace(tzinfo=datetime.UTC)


class CallContext(dict):
    """``__context__`` whose ``retcode`` belongs to the calling thread.

    Modules report failure by setting ``__context__['retcode']``; jobs that
    run at once on several threads (green or real) must not see each
    other's.  Every other key is shared, as in Salt.
    """

    RETCODE = "retcode"

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()

    def __getitem__(self, key: str) -> Any:
        if key == self.RETCODE:
            try:
                return self._local.retcode
            except AttributeError:
                raise KeyError(key) from None
        return super().__getitem__(key)

    def __setitem__(self, key: str, value: Any) -> None:
        if key == self.RETCODE:
            self._local.retcode = value
        else:
            super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        if key == self.RETCODE:
            self.pop(key)
        else:
            super().__delitem__(key)

    def __contains__(self, key: object) -> bool:
        if key == self.RETCODE:
            return hasattr(self._local, "retcode")
        return super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        """Return the value of ``key`` (this thread's retcode), or ``default``."""
        if key == self.RETCODE:
            return getattr(self._local, "retcode", default)
        return super().get(key, default)

    def pop(self, key: str, *default: Any) -> Any:
        """Remove ``key`` and return its value (this thread's retcode), or ``default``."""
        if key != self.RETCODE:
            return super().pop(key, *default)
        if hasattr(self._local, "retcode"):
            value = self._local.retcode
            del self._local.retcode
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def clear(self) -> None:
        """Forget every key (and this thread's retcode)."""
        super().clear()
        self.pop(self.RETCODE, None)


def job_retcode(ret: Any, context_retcode: int = 0) -> int:
    """Return a job's retcode by Salt's rule (context first, then result/success)."""
    if context_retcode:
        return int(context_retcode)
    if isinstance(ret, dict) and any(key in ret and not ret[key] for key in ("result", "success")):
        return 1
    return 0


@dataclass
class JobReturn:
    """The outcome of one job, shaped like Salt's return event."""

    jid: str
    fun: str
    fun_args: list[Any]
    id: str
    started_at: datetime.datetime
    ret: Any = None
    retcode: int = 0
    finished_at: datetime.datetime | None = None
    error: str | None = None
    out: str | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        """Return whether the job succeeded (retcode 0)."""
        return self.retcode == 0

    def event(self) -> dict[str, Any]:
        """Return the payload of the ``ret`` event."""
        payload = {"cmd": "_return", "id": self.id, "jid": self.jid, "fun": self.fun,
                   "fun_args": self.fun_args, "return": self.ret, "retcode": self.retcode,
                   "success": self.success}
        if self.out:
            payload["out"] = self.out
        return payload

    def to_dict(self) -> dict[str, Any]:
        """Return every field, times as ISO-8601 strings."""
        data = asdict(self)
        data["success"] = self.success
        for key in ("started_at", "finished_at"):
            data[key] = data[key].isoformat() if data[key] else None
        return data


class ProcTable:
    """Running-job records, one JSON file per job in ``directory``."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def _path(self, jid: str) -> str:
        return os.path.join(self.directory, jid)

    def add(self, record: Mapping[str, Any]) -> None:
        """Record a job as running."""
        paths.ensure_directory(self.directory, "the directory of running jobs")
        with open(self._path(record["jid"]), "w", encoding="utf-8") as handle:
            json.dump(dict(record), handle, default=str)

    def remove(self, jid: str) -> None:
        """Forget a job (it finished)."""
        try:
            os.unlink(self._path(jid))
        except FileNotFoundError:
            pass

    def find(self, jid: str) -> dict[str, Any]:
        """Return the record of a running job, or ``{}``; a dead job's record is removed."""
        try:
            with open(self._path(jid), encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            return {}
        if not _pid_alive(record.get("pid", 0)):
            self.remove(jid)
            return {}
        return record

    def running(self) -> list[dict[str, Any]]:
        """Return the records of every running job, oldest first."""
        try:
            names = sorted(os.listdir(self.directory))
        except OSError:
            return []
        return [record for name in names if is_jid(name) and (record := self.find(name))]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError):
        return False
    return True


def _error_text(fun: str, function: Callable[..., Any], error: Exception,
                args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    """Word a failed call: bad arguments as Salt says, anything else by its message."""
    if isinstance(error, TypeError):

        try:
            inspect.signature(function).bind(*args, **kwargs)
        except TypeError as binding:
            return str(exception.InvalidArguments(name=fun, message=binding))
    return str(error)


class JobRunner:
    """Run execution functions as jobs: JIDs, running records, events, success rule.

    ``loader`` is a :class:`hearth.loader.Loader`; ``publish`` the bus's
    publish function; ``proc`` an optional :class:`ProcTable`; ``store`` an
    optional callable given every :class:`JobReturn` (the job cache).
    """

    def __init__(self, loader: Any, minion_id: str,
                 publish: Callable[[str, dict], None] = bus.publish,
                 proc: ProcTable | None = None,
                 store: Callable[[JobReturn], None] | None = None,
                 clock: Clock = utcnow, jids: Callable[[], str] = gen_jid) -> None:
        self.loader = loader
        self.minion_id = minion_id
        self._publish = publish
        self._proc = proc
        self._store = store
        self._clock = clock
        self._jids = jids

    def run(self, fun: str, args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None,
            jid: str | None = None, target: str | None = None) -> JobReturn:
        """Run ``fun`` and return its :class:`JobReturn`.

        A function that is missing or refused raises its loader error (no job
        is started for it); everything the function itself raises becomes
        the job's return with retcode 1.
        """
        loaded = self.loader.function(fun)
        kwargs = dict(kwargs or {})
        job = JobReturn(jid=jid or self._jids(), fun=fun, fun_args=list(args), id=self.minion_id,
                        started_at=self._clock(), out=loaded.outputter, kwargs=kwargs)
        record = {"jid": job.jid, "fun": fun, "pid": os.getpid(), "tgt": target or job.id,
                  "arg": job.fun_args}
        if self._proc:
            self._proc.add(record)
        self._publish(f"hearth/job/{job.jid}/new", {**record, "kwarg": kwargs})
        try:
            self._call(job, loaded.function, args, kwargs)
        finally:
            if self._proc:
                self._proc.remove(job.jid)
        job.finished_at = self._clock()
        self._publish(f"hearth/job/{job.jid}/ret/{job.id}", job.event())
        if self._store:
            self._store(job)
        return job

    def _call(self, job: JobReturn, function: Callable[..., Any], args: Sequence[Any],
              kwargs: Mapping[str, Any]) -> None:
        context = self.loader.context
        context.pop("retcode", None)
        try:
            job.ret = function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - a job's failure is its return
            LOG.debug("job %s (%s) raised", job.jid, job.fun, exc_info=True)
            job.error = _error_text(job.fun, function, error, args, kwargs)
            job.ret, job.retcode = f"ERROR executing '{job.fun}': {job.error}", 1
            return
        job.retcode = job_retcode(job.ret, context.pop("retcode", 0))
