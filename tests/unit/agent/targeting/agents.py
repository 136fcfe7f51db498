"""The agents and nodegroups the recorded Salt 3008 figures were taken with.

The same data was given to Salt 3008.3's matchers (minion opts ``id``,
``grains``, ``pillar``, ``nodegroups``) to record which agents each
expression selects; the tests compare Hearth's answers with those figures.
"""

from hearth.agent.targeting import AgentFacts

AGENT_DATA = {
    "web1": {
        "grains": {"os": "Ubuntu", "os_family": "Debian", "roles": ["web", "frontend"],
                   "num_cpus": 4, "virtual": True, "ipv4": ["10.0.0.11", "127.0.0.1"],
                   "ec2": {"tags": {"env": "prod", "team": "blue"}}, "kernel": "Linux",
                   "fqdn": "web1.example.com"},
        "pillar": {"role": "web", "env": "prod", "apps": ["nginx", "php"],
                   "limits": {"conn": 100}},
    },
    "web2": {
        "grains": {"os": "Debian", "os_family": "Debian", "roles": ["web"], "num_cpus": 2,
                   "virtual": False, "ipv4": ["10.0.1.12", "127.0.0.1"],
                   "ec2": {"tags": {"env": "dev"}}, "kernel": "Linux",
                   "fqdn": "web2.example.com"},
        "pillar": {"role": "web", "env": "dev", "apps": ["nginx"]},
    },
    "db1": {
        "grains": {"os": "CentOS", "os_family": "RedHat", "roles": ["db"], "num_cpus": 8,
                   "virtual": True, "ipv4": ["10.0.0.21", "127.0.0.1"],
                   "ec2": {"tags": {"env": "prod"}}, "kernel": "Linux",
                   "fqdn": "db1.example.com"},
        "pillar": {"role": "db", "env": "prod", "mysql": {"version": "8.0", "port": 3306}},
    },
    "db-backup.example": {
        "grains": {"os": "Ubuntu", "os_family": "Debian", "roles": ["db", "backup"],
                   "num_cpus": 1, "ipv4": ["192.168.5.3"], "kernel": "Linux",
                   "meta": [{"zone": "a"}, {"rack": "r2"}], "host:port": "x:1"},
        "pillar": {"role": "db", "env": "staging"},
    },
    "Web3": {
        "grains": {"os": "Windows", "os_family": "Windows", "roles": "web", "num_cpus": 16,
                   "ipv4": ["10.0.0.99"], "kernel": "Windows", "osrelease": "2019Server"},
        "pillar": {},
    },
    "cache.dev-1": {
        "grains": {"os": "Alpine", "os_family": "Alpine", "num_cpus": 2, "ipv4": [],
                   "ipv6": ["fd00::5"], "kernel": "Linux", "empty": None},
        "pillar": {"role": "cache"},
    },
}

AGENTS = [AgentFacts(name, data["grains"], data["pillar"]) for name, data in AGENT_DATA.items()]
ALL_IDS = sorted(AGENT_DATA)

NODEGROUPS = {
    "webs": "web*",
    "dbs": "G@roles:db",
    "prod": "I@env:prod",
    "webs_or_dbs": "N@webs or N@dbs",
    "prod_webs": "N@webs and N@prod",
    "names": ["db1", "web2"],
    "names_str": "db1 web2",
    "either": "web1 or db1",
    "loop_a": "N@loop_b or web1",
    "loop_b": "N@loop_a or db1",
    "deep": "N@prod_webs or cache*",
    "notdb": "not G@roles:db",
    "listlike": "L@web1,Web3",
}
