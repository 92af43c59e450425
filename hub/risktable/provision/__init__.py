"""Putting the hub on a Raspberry Pi: the installer behind ``risktable install``.

- :mod:`risktable.provision.pi_model`: which Pi this is (from the device tree) and
  the GPIO backend gpiozero needs on it.
- :mod:`risktable.provision.installer`: install, upgrade and uninstall into a
  target root: a virtual environment, the mosquitto drop-in, the hub's
  configuration, the systemd units and the udev rule of ``files/``.
"""
