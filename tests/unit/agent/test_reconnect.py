"""The reconnect policy shared by real and simulated agents (hearth.agent.reconnect)."""

import random

from hearth.agent.reconnect import ReconnectPolicy
from hearth.agent.settings import AgentSettings
from hearth.common import config


def test_each_agent_draws_its_reconnect_interval_in_salts_span():
    intervals = {ReconnectPolicy(recon_default=100, recon_max=2000,
                                 rng=random.Random(seed)).interval for seed in range(200)}
    assert min(intervals) >= 100 and max(intervals) <= 2100
    assert len(intervals) > 150  # spread, not one value for the whole fleet
    fixed = ReconnectPolicy(recon_default=300, recon_max=2000, recon_randomize=False)
    assert fixed.socket_options() == {"reconnect_ivl": 300, "reconnect_ivl_max": 2000}


def test_the_waits_stay_within_their_bounds():
    policy = ReconnectPolicy(random_reauth_delay=3.0, random_startup_delay=0.0,
                             rng=random.Random(1))
    delays = [policy.reauth_delay() for _ in range(100)]
    assert all(0 <= delay <= 3.0 for delay in delays) and len(set(delays)) == 100
    assert policy.startup_delay() == 0.0


def test_the_options_come_from_the_agent_section_with_salts_names(tmp_path):
    path = tmp_path / "hearth.conf"
    path.write_text("[agent]\nid = web1\nrecon_default = 50\nrecon_max = 0\n"
                    "recon_randomize = false\nrandom_reauth_delay = 7\n"
                    "random_startup_delay = 2\n")
    conf = config.load(conf=config.cfg.ConfigOpts(), config_files=[str(path)])
    policy = ReconnectPolicy.from_settings(AgentSettings.from_conf(conf))
    assert (policy.interval, policy.random_reauth_delay, policy.random_startup_delay) == (
        50, 7.0, 2.0)
    assert policy.socket_options() == {"reconnect_ivl": 50}
