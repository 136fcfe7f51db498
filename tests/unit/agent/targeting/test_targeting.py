"""Hearth's targeting against figures recorded from real Salt 3008.3.

Every row was answered by Salt's own matchers (``salt.loader.matchers`` with
minion opts built from :mod:`tests.unit.agent.targeting.agents`; ``nodegroup``
rows as the master does it: ``nodegroup_comp`` then the compound matcher).
Only the figures are kept here.  Where Salt logs an error and matches
nothing, Hearth raises ``InvalidTarget`` instead; those rows are in
``SALT_MATCHES_NOTHING`` and the one deliberate difference (a nodegroup is
one operand) is in ``test_nodegroup_is_one_operand``.
"""

import pytest

from hearth.agent.targeting import TARGET_TYPES, AgentFacts, matches, select
from hearth.common.exception import InvalidTarget
from tests.unit.agent.targeting.agents import AGENTS, NODEGROUPS

#: (target_type, target, ids Salt 3008.3 selected)
SALT_FIGURES = [
    ('glob', '*', ['Web3', 'cache.dev-1', 'db-backup.example', 'db1', 'web1', 'web2']),
    ('glob', 'web*', ['web1', 'web2']),
    ('glob', 'Web*', ['Web3']),
    ('glob', 'web[12]', ['web1', 'web2']),
    ('glob', '*.example', ['db-backup.example']),
    ('glob', 'db?', ['db1']),
    ('glob', 'w?b*', ['web1', 'web2']),
    ('glob', '[!w]*', ['Web3', 'cache.dev-1', 'db-backup.example', 'db1']),
    ('glob', 'web1,web2', []),
    ('pcre', 'web', ['web1', 'web2']),
    ('pcre', 'web\\d', ['web1', 'web2']),
    ('pcre', 'eb', []),
    ('pcre', '.*eb', ['Web3', 'web1', 'web2']),
    ('pcre', '(?i)web', ['Web3', 'web1', 'web2']),
    ('pcre', 'db1$', ['db1']),
    ('pcre', 'db', ['db-backup.example', 'db1']),
    ('pcre', 'web1|db1', ['db1', 'web1']),
    ('list', 'web1,db1', ['db1', 'web1']),
    ('list', 'web1, db1', ['web1']),
    ('list', 'web1', ['web1']),
    ('list', 'web', []),
    ('list', 'nosuch,Web3', ['Web3']),
    ('list', 'web1,,db1', ['db1', 'web1']),
    ('grain', 'os:Ubuntu', ['db-backup.example', 'web1']),
    ('grain', 'os:ubuntu', ['db-backup.example', 'web1']),
    ('grain', 'os:Ub*', ['db-backup.example', 'web1']),
    ('grain', 'roles:web', ['Web3', 'web1', 'web2']),
    ('grain', 'roles:front*', ['web1']),
    ('grain', 'roles:*', ['Web3', 'db-backup.example', 'db1', 'web1', 'web2']),
    ('grain', 'num_cpus:4', ['web1']),
    ('grain', 'num_cpus:[12]', ['cache.dev-1', 'db-backup.example', 'web2']),
    ('grain', 'virtual:true', ['db1', 'web1']),
    ('grain', 'virtual:True', ['db1', 'web1']),
    ('grain', 'virtual:false', ['web2']),
    ('grain', 'ec2:tags:env:prod', ['db1', 'web1']),
    ('grain', 'ec2:tags:env', ['db1', 'web1', 'web2']),
    ('grain', 'ec2:tags:*', ['db1', 'web1', 'web2']),
    ('grain', 'ec2:tags', ['db1', 'web1', 'web2']),
    ('grain', 'ec2:*', ['db1', 'web1', 'web2']),
    ('grain', 'ec2:tags:team:b*', ['web1']),
    ('grain', 'nosuch:x', []),
    ('grain', 'meta:zone:a', ['db-backup.example']),
    ('grain', 'meta:rack:r2', ['db-backup.example']),
    ('grain', 'host:port:x:1', []),
    ('grain', 'fqdn:*.example.com', ['db1', 'web1', 'web2']),
    ('grain', 'empty:None', ['cache.dev-1']),
    ('grain', 'os_family:Debian', ['db-backup.example', 'web1', 'web2']),
    ('grain', '*:Ubuntu', ['db-backup.example', 'web1']),
    ('grain', 'ipv4:10.0.0.*', ['Web3', 'db1', 'web1']),
    ('grain', 'roles:0:web', ['web1', 'web2']),
    ('grain_pcre', 'os:(Ubuntu|Debian)', ['db-backup.example', 'web1', 'web2']),
    ('grain_pcre', 'os:ubu', ['db-backup.example', 'web1']),
    ('grain_pcre', 'os:buntu', []),
    ('grain_pcre', 'num_cpus:\\d{2}', ['Web3']),
    ('grain_pcre', 'roles:fr.*', ['web1']),
    ('grain_pcre', 'ec2:tags:env:pr', ['db1', 'web1']),
    ('pillar', 'role:web', ['web1', 'web2']),
    ('pillar', 'env:prod', ['db1', 'web1']),
    ('pillar', 'env:PROD', ['db1', 'web1']),
    ('pillar', 'apps:php', ['web1']),
    ('pillar', 'mysql:version:8.*', ['db1']),
    ('pillar', 'mysql:port:3306', ['db1']),
    ('pillar', 'role:*', ['cache.dev-1', 'db-backup.example', 'db1', 'web1', 'web2']),
    ('pillar', 'limits:conn:100', ['web1']),
    ('pillar_pcre', 'env:(prod|dev)', ['db1', 'web1', 'web2']),
    ('pillar_pcre', 'role:w', ['web1', 'web2']),
    ('pillar_exact', 'role:web', ['web1', 'web2']),
    ('pillar_exact', 'role:w*', []),
    ('pillar_exact', 'env:PROD', ['db1', 'web1']),
    ('ipcidr', '10.0.0.0/24', ['Web3', 'db1', 'web1']),
    ('ipcidr', '10.0.0.11', ['web1']),
    ('ipcidr', '127.0.0.1', ['db1', 'web1', 'web2']),
    ('ipcidr', '10.0.0.0/16', ['Web3', 'db1', 'web1', 'web2']),
    ('ipcidr', 'fd00::/8', ['cache.dev-1']),
    ('ipcidr', '192.168.5.3/32', ['db-backup.example']),
    ('compound', 'web*', ['web1', 'web2']),
    ('compound', 'web* and G@os:Ubuntu', ['web1']),
    ('compound', 'web* or db*', ['db-backup.example', 'db1', 'web1', 'web2']),
    ('compound', 'not web*', ['Web3', 'cache.dev-1', 'db-backup.example', 'db1']),
    ('compound', 'web* not G@os:Debian', ['web1']),
    ('compound', 'G@os:Ubuntu or G@os:Debian and I@env:dev', ['db-backup.example', 'web1', 'web2']),
    ('compound', '( G@os:Ubuntu or G@os:Debian ) and I@env:dev', ['web2']),
    ('compound', 'E@web\\d and not L@web2', ['web1']),
    ('compound', 'L@web1,db1 or P@os:Cent.*', ['db1', 'web1']),
    ('compound', 'I@role:db and not G@roles:backup', ['db1']),
    ('compound', 'J@env:(prod|staging)', ['db-backup.example', 'db1', 'web1']),
    ('compound', 'N@webs', ['web1', 'web2']),
    ('compound', 'N@webs and G@virtual:true', ['web1']),
    ('compound', 'N@webs_or_dbs', ['db-backup.example', 'db1', 'web1', 'web2']),
    ('compound', 'N@either and web*', ['web1']),
    ('compound', 'S@10.0.0.0/24 and not db*', ['Web3', 'web1']),
    ('compound', 'G;@ec2;tags;env;prod', ['db1', 'web1']),
    ('compound', 'G@ec2:tags:env:prod', ['db1', 'web1']),
    ('compound', 'I@limits:conn:100 or cache*', ['cache.dev-1', 'web1']),
    ('compound', 'X@foo', []),
    ('compound', '( web1 or db1 )', ['db1', 'web1']),
    ('compound', '( not web1 )', ['Web3', 'cache.dev-1', 'db-backup.example', 'db1', 'web2']),
    ('compound', 'N@names', ['db1', 'web2']),
    ('compound', 'N@names_str', ['db1', 'web2']),
    ('compound', 'N@deep', ['cache.dev-1', 'web1']),
    ('compound', 'N@notdb or web1', ['Web3', 'cache.dev-1', 'web1', 'web2']),
    ('nodegroup', 'webs', ['web1', 'web2']),
    ('nodegroup', 'dbs', ['db-backup.example', 'db1']),
    ('nodegroup', 'webs_or_dbs', ['db-backup.example', 'db1', 'web1', 'web2']),
    ('nodegroup', 'prod_webs', ['web1']),
    ('nodegroup', 'names', ['db1', 'web2']),
    ('nodegroup', 'names_str', ['db1', 'web2']),
    ('nodegroup', 'either', ['db1', 'web1']),
    ('nodegroup', 'deep', ['cache.dev-1', 'web1']),
    ('nodegroup', 'notdb', ['Web3', 'cache.dev-1', 'web1', 'web2']),
    ('nodegroup', 'listlike', ['Web3', 'web1']),
    ('compound', 'G@roles:web and not N@dbs', ['Web3', 'web1', 'web2']),
    ('compound', 'E@web(1|2)', ['web1', 'web2']),
    ('compound', 'web1 or db1 and G@os:CentOS', ['db1', 'web1']),
    ('compound', 'not web* and not db*', ['Web3', 'cache.dev-1']),
    ('compound', 'not ( web* or db* )', ['Web3', 'cache.dev-1']),
    ('compound', '( web1 ) not ( db1 )', ['web1']),
    ('compound', 'web* not web2', ['web1']),
    ('list', ['web1', 'db1'], ['db1', 'web1']),
    ('compound', ['web1', 'or', 'db1'], ['db1', 'web1']),
    ('glob', 'WEB1', []),
    ('grain', 'os:*', ['Web3', 'cache.dev-1', 'db-backup.example', 'db1', 'web1', 'web2']),
    ('grain', 'roles:WEB', ['Web3', 'web1', 'web2']),
    ('pillar', 'apps:0:nginx', ['web1', 'web2']),
    ('pillar', 'mysql:*', ['db1']),
    ('pillar', 'mysql:version', ['db1']),
    ('compound', 'I@mysql:version:8.0 and J@mysql:port:33.*', ['db1']),
    ('grain_pcre', 'meta:zone:.*', ['db-backup.example']),
    ('grain', 'kernel:L*', ['cache.dev-1', 'db-backup.example', 'db1', 'web1', 'web2']),
    ('compound', 'S@127.0.0.1', ['db1', 'web1', 'web2']),
    ('compound', 'P;@ec2;tags;env;d.v', ['web2']),
]

#: Expressions Salt accepts but answers with no agent (logging an error at most).
SALT_MATCHES_NOTHING = [
    ("glob", ""),
    ("grain", "os"),
    ("pcre", "web("),
    ("grain_pcre", "os:(ubu"),
    ("compound", "not not web1"),
    ("compound", "web1 and"),
    ("compound", "and web1"),
    ("compound", "( web1"),
    ("compound", "web1 )"),
    ("compound", "(web1 or db1)"),
    ("compound", "web1 db1"),
    ("compound", "web1 or or db1"),
    ("compound", "not"),
    ("compound", ""),
    ("compound", "( and web1 )"),
    ("compound", "web1 and ( )"),
    ("compound", "N@nosuch"),
    ("compound", "N@loop_a"),
    ("compound", "T@x"),
    ("compound", "R@foo"),
    ("compound", "G@os"),
    ("nodegroup", "loop_a"),
    ("nodegroup", "nosuch"),
]


@pytest.mark.parametrize(("target_type", "target", "expected"), SALT_FIGURES)
def test_select_agrees_with_salt(target_type, target, expected):
    assert select(target, target_type, AGENTS, NODEGROUPS) == expected


@pytest.mark.parametrize(("target_type", "target"), SALT_MATCHES_NOTHING)
def test_what_salt_silently_matches_nothing_is_an_error(target_type, target):
    with pytest.raises(InvalidTarget) as caught:
        select(target, target_type, AGENTS, NODEGROUPS)
    assert f"({target_type})" in str(caught.value)


def test_nodegroup_is_one_operand():
    # Salt 3008.3 answers ['db1', 'web1']: it splices "web1 or db1" in unwrapped.
    assert select("N@either and db*", "compound", AGENTS, NODEGROUPS) == ["db1"]


def test_matches_answers_for_one_agent():
    web1 = AGENTS[0]
    assert matches("G@os:Ubuntu and web*", "compound", web1)
    assert not matches("db*", "glob", web1)


def test_default_facts_are_empty():
    bare = AgentFacts("bare")
    assert select("os:*", "grain", [bare]) == []
    assert select("bare", "glob", [bare]) == ["bare"]


def test_target_types_are_salts_names():
    assert set(TARGET_TYPES) == {"glob", "pcre", "list", "grain", "grain_pcre", "pillar",
                                 "pillar_pcre", "pillar_exact", "ipcidr", "compound",
                                 "nodegroup"}


@pytest.mark.parametrize(("target", "target_type", "message"), [
    ("web*", "globb",
     "Invalid target 'web*' (globb): unknown target type; use one of glob, pcre, list, grain, "
     "grain_pcre, pillar, pillar_pcre, pillar_exact, ipcidr, compound, nodegroup. "
     'Did you mean "glob"?'),
    ("", "glob", "Invalid target '' (glob): the target is empty"),
    (None, "list", "Invalid target None (list): the target is empty"),
    (["a"], "glob", "Invalid target ['a'] (glob): a glob must be a string, not list"),
    (7, "list", "Invalid target 7 (list): a list target is a comma-separated string or a "
                "list, not int"),
    ("web(", "pcre", "Invalid target 'web(' (pcre): bad regular expression 'web(': missing ), "
                     "unterminated subpattern at position 3"),
    ("os", "grain", "Invalid target 'os' (grain): a grains target needs a key and a value "
                    "separated by ':', e.g. 'os:Ubuntu'"),
    ("role", "pillar", "Invalid target 'role' (pillar): a pillar target needs a key and a "
                       "value separated by ':', e.g. 'os:Ubuntu'"),
    ("10.0.0.1/24", "ipcidr", "Invalid target '10.0.0.1/24' (ipcidr): not an IP address or "
                              "CIDR network: 10.0.0.1/24 has host bits set"),
    ("webs", "nodegroup", "Invalid target 'webs' (nodegroup): unknown nodegroup 'webs'; "
                          "known: none are configured."),
    (["webs"], "nodegroup", "Invalid target ['webs'] (nodegroup): a nodegroup target is a "
                            "name, not list"),
])
def test_invalid_target_messages(target, target_type, message):
    with pytest.raises(InvalidTarget) as caught:
        select(target, target_type, AGENTS)
    assert str(caught.value) == message


def test_invalid_target_is_a_bad_request():
    from hearth.api.faults import status_for

    with pytest.raises(InvalidTarget) as caught:
        select("x", "nosuch", AGENTS)
    assert status_for(caught.value) == 400
