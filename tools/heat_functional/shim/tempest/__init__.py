"""Stand-in for tempest: heat_integrationtests only reads ``tempest.config.CONF``."""
