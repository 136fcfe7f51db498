"""The job cache: store, list, show, TTL expiry and purge."""

import datetime

import pytest

from hearth.common import exception
from hearth.db import job_cache
from hearth.db.session import forget_database, get_database
from hearth.jobs import JobReturn

START = datetime.datetime(2026, 11, 21, 12, 0, 0, tzinfo=datetime.UTC)


@pytest.fixture
def db(tmp_path):
    url = f"sqlite:///{tmp_path}/jobs.db"
    yield get_database(url)
    forget_database(url)


def make_job(jid, ret=True, retcode=0):
    return JobReturn(jid=jid, fun="test.echo", fun_args=["hi"], id="m1", started_at=START,
                     ret=ret, retcode=retcode, finished_at=START, kwargs={"k": 1})


def clock(hours):
    return lambda: START.replace(tzinfo=None) + datetime.timedelta(hours=hours)


def test_store_list_show(db):
    job_cache.job_store(db, make_job("20261121120000000001"), 24, clock(0))
    job_cache.job_store(db, make_job("20261121120000000002", {"result": False}, 1), 24, clock(0))
    listed = job_cache.job_list(db, clock=clock(1))
    assert [job["jid"] for job in listed] == ["20261121120000000002", "20261121120000000001"]
    shown = job_cache.job_get(db, "20261121120000000002", clock=clock(1))
    assert shown["return"] == {"result": False} and shown["success"] is False
    assert shown["args"] == ["hi"] and shown["kwargs"] == {"k": 1}
    assert shown["started_at"] == "2026-11-21T12:00:00"
    assert len(job_cache.job_list(db, limit=1, clock=clock(1))) == 1


def test_expired_jobs_are_hidden_and_purged(db):
    job_cache.job_store(db, make_job("20261121120000000001"), 2, clock(0))
    assert job_cache.job_list(db, clock=clock(3)) == []
    with pytest.raises(exception.JobNotFound) as caught:
        job_cache.job_get(db, "20261121120000000001", clock=clock(3))
    assert str(caught.value) == "The Job (20261121120000000001) could not be found."
    assert job_cache.job_purge_expired(db, clock(3)) == 1


def test_zero_hours_keeps_nothing(db):
    job_cache.job_store(db, make_job("20261121120000000001"), 0, clock(0))
    assert job_cache.job_list(db, clock=clock(0)) == []


def test_default_retention_is_configured(db):
    assert job_cache.keep_hours() == 24
