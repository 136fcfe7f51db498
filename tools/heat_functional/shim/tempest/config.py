"""The settings heat_integrationtests reads from ``tempest.config.CONF``.

heat-tempest-plugin registers them in a real tempest; here they are plain
attributes, with the plugin's defaults where the suite needs a value and no
Nova image, flavor, network or key pair (tests needing those skip, as they
do against real Heat without them).  ``suite.py`` sets the environment
variables read below.
"""

import os
import types

HEAT_PLUGIN = types.SimpleNamespace(
    catalog_type="orchestration",
    # the suite checks these are set; no identity service is ever contacted
    auth_url="http://identity.invalid/v3", auth_version=None,
    username="demo", password="unused", project_name="admin",
    admin_username="admin", admin_password="unused", admin_project_name="admin",
    user_domain_name=None, user_domain_id=None,
    project_domain_name=None, project_domain_id=None,
    region=None, endpoint_type="public",
    disable_ssl_certificate_validation=False, ca_file=None,
    build_interval=int(os.environ.get("HEARTH_HF_BUILD_INTERVAL", "1")),
    build_timeout=int(os.environ.get("HEARTH_HF_BUILD_TIMEOUT", "60")),
    instance_type=None, minimal_instance_type=None,
    image_ref=None, minimal_image_ref=None, keypair_name=None,
    network_for_ssh="heat-net", fixed_network_name="heat-net",
    floating_network_name="public", fixed_subnet_name="heat-subnet",
    boot_config_env=None, ssh_timeout=300, ip_version_for_ssh=4, ssh_channel_timeout=60,
    skip_scenario_tests=False, skip_functional_tests=False,
    skip_scenario_test_list=None, skip_functional_test_list=None,
    skip_test_stack_action_list=None,
    convergence_engine_enabled=True,
    volume_size=1, connectivity_timeout=120,
    heat_config_notify_script="heat-config-notify",
    hidden_stack_tag="data-processing-cluster",
    credential_secret_id=None, dns_servers=["8.8.8.8", "8.8.4.4"],
    vm_to_heat_api_insecure=False,
)

CONF = types.SimpleNamespace(
    heat_plugin=HEAT_PLUGIN,
    heat_features_enabled=types.SimpleNamespace(stack_cancel=False, multi_cloud=False),
    service_available=types.SimpleNamespace(heat=True),
    # the notification tests listen on AMQP: there is none, they fail on both sides
    oslo_messaging_rabbit=types.SimpleNamespace(
        rabbit_userid="guest", rabbit_password="guest", rabbit_host="amqp.invalid",
        rabbit_port=5672),
)
