# The seat firmware's version, sent in every birth (`fw`, protocol/README.md).
#
# RELEASE is the number people talk about. BUILD is the content hash of the firmware
# files (hub: risktable/provision/fw_version.py): `risktable seat build` writes it
# into the compiled copy of this module, so a seat built from a changed file reports a
# different version. Run from the source tree (development, the tests' seats) BUILD
# stays None and the seat reports the bare release number.

RELEASE = "0.3.0"
BUILD = None


def version():
    return RELEASE if BUILD is None else RELEASE + "+" + BUILD
