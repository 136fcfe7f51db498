"""An ec2 provider's credentials and regions."""

import pytest

from hearth.clouds import ec2_session


@pytest.mark.parametrize(("conf", "credentials"), [
    ({"id": "AKIA1", "key": "s"}, {"aws_access_key_id": "AKIA1", "aws_secret_access_key": "s"}),
    ({"id": "AKIA1", "key": "s", "token": "t"},
     {"aws_access_key_id": "AKIA1", "aws_secret_access_key": "s", "aws_session_token": "t"}),
    ({}, None),
    ({"id": "use-instance-role-credentials", "key": "use-instance-role-credentials"}, None),
])
def test_static_credentials_or_the_chain(conf, credentials):
    assert ec2_session.static_credentials(conf) == credentials
    assert ec2_session.credentials_problem(conf) is None


@pytest.mark.parametrize(("conf", "problem"), [
    ({"id": "AKIA1"}, "'id' is set without 'key'"),
    ({"key": "s"}, "'key' is set without 'id'"),
    ({"id": "AKIA1", "key": "s", "aws_profile": "p"},
     "'id'/'key' and 'aws_profile' are both set: use one of them"),
])
def test_credential_options_that_contradict_are_refused(conf, problem):
    assert ec2_session.credentials_problem(conf).startswith(problem)


def test_regions_are_the_providers_its_profiles_and_those_it_made_nodes_in(tmp_path):
    opts = {"cachedir": str(tmp_path), "profiles": {
        "eu": {"provider": "aws", "location": "eu-west-1"},
        "other": {"provider": "elsewhere", "location": "ap-south-1"},
        "plain": {"provider": "aws:ec2"}}}
    assert ec2_session.known_regions(opts, "aws:ec2", {}) == ["us-east-1", "eu-west-1"]
    ec2_session.record_region(opts, "aws:ec2", "sa-east-1")
    ec2_session.record_region(opts, "aws:ec2", "eu-west-1")
    assert ec2_session.known_regions(opts, "aws:ec2", {"location": "us-west-2"}) == [
        "us-west-2", "eu-west-1", "sa-east-1"]
    assert ec2_session.recorded_regions(opts, "other:ec2") == []
